# GET /{game}/sets/{set}: The products of one set, paginated (prices empty) (operationId getSetCards).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

page = client.dbs.get_set_cards("FB01", limit=3)
if "disambiguation" in page:  # a code several sets share: ask again by set_id
    raise SystemExit(page["message"])
print(page["set"]["name"], "-", page["pagination"]["total"], "products")
for card in page["cards"]:
    print(card["id"], card["card_info"]["name"])
# Every product, page after page: for card in client.dbs.iter_set_cards("FB01"): ...
