#!/bin/sh
# GET /{game}/analytics/top-cards: The most expensive cards, or the fastest-growing ones (operationId getTopCards).
# The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/analytics/top-cards?limit=3&metric=price&source=tcg" \
  -H "X-API-Key: $CARDCAT_API_KEY"
