#!/bin/sh
# GET /{game}/cards/tcgplayer/{productId}: The card of a TCGplayer product, by its productId (operationId getCardByTCGplayerProduct).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/cards/tcgplayer/629023" \
  -H "X-API-Key: $CARDCAT_API_KEY"
