#!/bin/sh
# GET /search: Pokémon Trading Card Game: cards by name or card number, with their prices (operationId pkmSearchCards).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/search?limit=3&q=Alakazam" \
  -H "X-API-Key: $CARDCAT_API_KEY"
