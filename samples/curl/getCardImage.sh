#!/bin/sh
# GET /{game}/images/{id}: The card's image, cacheable for 24 hours (operationId getCardImage).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/images/dbs_3ef29751ae2b88a4" \
  -H "X-API-Key: $CARDCAT_API_KEY" \
  -o card.jpg -w '%{content_type} %{size_download} bytes\n'
