#!/bin/sh
# GET /cards/{id}/history: Pokémon Trading Card Game: a card's daily prices on one marketplace, oldest first (operationId pkmGetCardHistory).
# The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/cards/pkm_7dfccec2b4149d0f/history?days=30&source=tcg" \
  -H "X-API-Key: $CARDCAT_API_KEY"
