#!/bin/sh
# GET /: What the service is, how to authenticate, every endpoint (operationId getRoot).
# A public route: no key needed.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/"
