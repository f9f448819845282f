#!/bin/sh
# GET /sets/{set}/statistics: Pokémon Trading Card Game: price statistics of a set's cards in one finish, and its rarity breakdown (operationId pkmGetSetStatistics).
# The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/sets/BS/statistics" \
  -H "X-API-Key: $CARDCAT_API_KEY"
