#!/bin/sh
# GET /sets/{set}/image: Pokémon Trading Card Game: the set's logo, cacheable for 24 hours (operationId pkmGetSetImage).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/sets/BS/image" \
  -H "X-API-Key: $CARDCAT_API_KEY" \
  -o set-logo.png -w '%{content_type} %{size_download} bytes\n'
