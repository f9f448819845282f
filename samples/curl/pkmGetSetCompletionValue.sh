#!/bin/sh
# GET /sets/{set}/completion-value: Pokémon Trading Card Game: what one copy of every card of a set costs (operationId pkmGetSetCompletionValue).
# The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/sets/BS/completion-value" \
  -H "X-API-Key: $CARDCAT_API_KEY"
