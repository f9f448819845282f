#!/bin/sh
# GET /{game}/cards/{id}/history: A card's daily prices on one marketplace, oldest first (operationId getCardHistory).
# The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/cards/dbs_3ef29751ae2b88a4/history?days=30&source=tcg" \
  -H "X-API-Key: $CARDCAT_API_KEY"
