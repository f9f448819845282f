#!/bin/sh
# GET /cards/cardmarket/{idProduct}: Pokémon Trading Card Game: the card of a Cardmarket product, by its idProduct (operationId pkmGetCardByCardmarketProduct).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/cards/cardmarket/273696" \
  -H "X-API-Key: $CARDCAT_API_KEY"
