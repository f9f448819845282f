#!/bin/sh
# GET /{game}/cards: Up to 100 cards by their ids, in one request (operationId getCards).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/cards?ids=dbs_3ef29751ae2b88a4" \
  -H "X-API-Key: $CARDCAT_API_KEY"
