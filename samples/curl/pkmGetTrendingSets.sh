#!/bin/sh
# GET /sets/trending: Pokémon Trading Card Game: the sets whose Cardmarket prices moved most (7-day against 30-day average) (operationId pkmGetTrendingSets).
# The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/sets/trending?limit=3&period=7d" \
  -H "X-API-Key: $CARDCAT_API_KEY"
