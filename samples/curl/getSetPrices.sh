#!/bin/sh
# GET /{game}/prices/{set}: The prices of every product of a set, one row per finish (operationId getSetPrices).
# The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/prices/FB01" \
  -H "X-API-Key: $CARDCAT_API_KEY"
