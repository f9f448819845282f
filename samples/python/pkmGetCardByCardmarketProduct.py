# GET /cards/cardmarket/{idProduct}: Pokémon Trading Card Game: the card of a Cardmarket product, by its idProduct (operationId pkmGetCardByCardmarketProduct).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

card = client.pkm.get_card_by_cardmarket_product(273696)
print(card["id"], card["card_info"]["name"], "-", card["card_info"]["set_name"])
