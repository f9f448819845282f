#!/bin/sh
# GET /{game}/changes: The cards whose detail body changed after a time, to keep a copy in sync (operationId listChanges).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/changes?since=2099-01-01T00%3A00%3A00Z" \
  -H "X-API-Key: $CARDCAT_API_KEY"
