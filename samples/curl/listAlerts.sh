#!/bin/sh
# GET /alerts: Your account's price alerts, with their state, oldest first (operationId listAlerts).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

# Your account's alerts, 100 a page (limit up to 1000; page=2 for the next).
curl -fsS "${CARDCAT_URL:-http://localhost:8080}/alerts?limit=100" \
  -H "X-API-Key: $CARDCAT_API_KEY"
