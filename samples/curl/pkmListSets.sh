#!/bin/sh
# GET /sets: Pokémon Trading Card Game: every set of the game that has products, newest first (operationId pkmListSets).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/sets" \
  -H "X-API-Key: $CARDCAT_API_KEY"
