#!/bin/sh
# GET /{game}/bulk: The whole-catalogue download files of the game (operationId listBulkFiles).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/bulk" \
  -H "X-API-Key: $CARDCAT_API_KEY"
