#!/bin/sh
# GET /cards/{id}: Pokémon Trading Card Game: one card with all its prices (operationId pkmGetCard).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/cards/pkm_7dfccec2b4149d0f" \
  -H "X-API-Key: $CARDCAT_API_KEY"
