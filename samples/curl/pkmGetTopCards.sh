#!/bin/sh
# GET /analytics/top-cards: Pokémon Trading Card Game: the most expensive cards, or the fastest-growing ones (operationId pkmGetTopCards).
# The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/analytics/top-cards?limit=3&metric=price&source=tcg" \
  -H "X-API-Key: $CARDCAT_API_KEY"
