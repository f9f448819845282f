#!/bin/sh
# GET /prices/{set}: Pokémon Trading Card Game: the prices of every product of a set, one row per finish (operationId pkmGetSetPrices).
# The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/prices/BS" \
  -H "X-API-Key: $CARDCAT_API_KEY"
