# GET /sets/{set}: Pokémon Trading Card Game: the products of one set, paginated (prices empty) (operationId pkmGetSetCards).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

page = client.pkm.get_set_cards("BS", limit=3)
if "disambiguation" in page:  # a code several sets share: ask again by set_id
    raise SystemExit(page["message"])
print(page["set"]["name"], "-", page["pagination"]["total"], "products")
for card in page["cards"]:
    print(card["id"], card["card_info"]["name"])
# Every product, page after page: for card in client.pkm.iter_set_cards("BS"): ...
