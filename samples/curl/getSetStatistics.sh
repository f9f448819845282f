#!/bin/sh
# GET /{game}/sets/{set}/statistics: Price statistics of a set's cards in one finish, and its rarity breakdown (operationId getSetStatistics).
# The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/sets/FB01/statistics" \
  -H "X-API-Key: $CARDCAT_API_KEY"
