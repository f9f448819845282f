#!/bin/sh
# GET /{game}/search: Cards by name or card number, with their prices (operationId searchCards).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/search?limit=3&q=Ultimate+Sparking" \
  -H "X-API-Key: $CARDCAT_API_KEY"
