#!/bin/sh
# GET /{game}/sets/{set}: The products of one set, paginated (prices empty) (operationId getSetCards).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/sets/FB01?limit=3" \
  -H "X-API-Key: $CARDCAT_API_KEY"
