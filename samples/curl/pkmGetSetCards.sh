#!/bin/sh
# GET /sets/{set}: Pokémon Trading Card Game: the products of one set, paginated (prices empty) (operationId pkmGetSetCards).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/sets/BS?limit=3" \
  -H "X-API-Key: $CARDCAT_API_KEY"
