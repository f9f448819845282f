# GET /analytics/top-cards: Pokémon Trading Card Game: the most expensive cards, or the fastest-growing ones (operationId pkmGetTopCards).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

top = client.pkm.get_top_cards(metric="price", source="tcg", limit=3)
for card in top["top_cards"]:
    print(card["id"], card["card_info"]["name"])
