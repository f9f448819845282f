# GET /cards: Pokémon Trading Card Game: up to 100 cards by their ids, in one request (operationId pkmGetCards).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

batch = client.pkm.get_cards(["pkm_7dfccec2b4149d0f"])  # up to 100 ids
for card in batch["data"]:
    print(card["id"], card["card_info"]["name"], "-", card["card_info"]["set_name"])
print(len(batch["not_found"]), "not found")
