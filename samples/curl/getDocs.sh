#!/bin/sh
# GET /docs: The API reference and guides, as an HTML page (operationId getDocs).
# A public route: no key needed.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/docs" \
  -o docs.html -w '%{content_type} %{size_download} bytes\n'
