#!/bin/sh
# GET /cards/tcgplayer/{productId}: Pokémon Trading Card Game: the card of a TCGplayer product, by its productId (operationId pkmGetCardByTCGplayerProduct).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/cards/tcgplayer/42346" \
  -H "X-API-Key: $CARDCAT_API_KEY"
