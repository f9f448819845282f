#!/bin/sh
# GET /images/{id}: Pokémon Trading Card Game: the card's image, cacheable for 24 hours (operationId pkmGetCardImage).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/images/pkm_7dfccec2b4149d0f" \
  -H "X-API-Key: $CARDCAT_API_KEY" \
  -o card.jpg -w '%{content_type} %{size_download} bytes\n'
