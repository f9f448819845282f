#!/bin/sh
# GET /llms.txt: A plain-text guide to the API for AI assistants (operationId getLLMsTxt).
# A public route: no key needed.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/llms.txt"
