#!/bin/sh
# GET /{game}/bulk/{name}: One bulk file, as gzip bytes, resumable (operationId getBulkFile).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

# The file as it is (gzip): not decompressed on the way.
curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/bulk/cards.jsonl.gz" \
  -H "X-API-Key: $CARDCAT_API_KEY" \
  -o cards.jsonl.gz -w '%{content_type} %{size_download} bytes\n'
