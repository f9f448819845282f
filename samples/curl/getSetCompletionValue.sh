#!/bin/sh
# GET /{game}/sets/{set}/completion-value: What one copy of every card of a set costs (operationId getSetCompletionValue).
# The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/sets/FB01/completion-value" \
  -H "X-API-Key: $CARDCAT_API_KEY"
