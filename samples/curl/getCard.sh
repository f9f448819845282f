#!/bin/sh
# GET /{game}/cards/{id}: One card with all its prices (operationId getCard).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/cards/dbs_3ef29751ae2b88a4" \
  -H "X-API-Key: $CARDCAT_API_KEY"
