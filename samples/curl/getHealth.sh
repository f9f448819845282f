#!/bin/sh
# GET /health: Whether the service and its dependencies work (operationId getHealth).
# A public route: no key needed.
# -f: an error status (its JSON body: error, message) fails the command.

# 503 while a dependency is down, with the same body: no -f, so that it is shown.
curl -sS "${CARDCAT_URL:-http://localhost:8080}/health"
