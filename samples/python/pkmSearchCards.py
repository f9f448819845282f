# GET /search: Pokémon Trading Card Game: cards by name or card number, with their prices (operationId pkmSearchCards).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

found = client.pkm.search_cards("Alakazam", limit=3)
print(found["pagination"]["total"], "cards match", found["query"])
for card in found["results"]:
    print(card["id"], card["card_info"]["name"])
