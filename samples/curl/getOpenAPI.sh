#!/bin/sh
# GET /openapi.json: The OpenAPI 3.1 document of this API (operationId getOpenAPI).
# A public route: no key needed.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/openapi.json"
