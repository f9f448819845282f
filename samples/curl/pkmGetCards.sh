#!/bin/sh
# GET /cards: Pokémon Trading Card Game: up to 100 cards by their ids, in one request (operationId pkmGetCards).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/cards?ids=pkm_7dfccec2b4149d0f" \
  -H "X-API-Key: $CARDCAT_API_KEY"
