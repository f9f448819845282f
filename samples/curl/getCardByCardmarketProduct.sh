#!/bin/sh
# GET /{game}/cards/cardmarket/{idProduct}: The card of a Cardmarket product, by its idProduct (operationId getCardByCardmarketProduct).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/dbs/cards/cardmarket/624949" \
  -H "X-API-Key: $CARDCAT_API_KEY"
