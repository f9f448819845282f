# GET /prices/{set}: Pokémon Trading Card Game: the prices of every product of a set, one row per finish (operationId pkmGetSetPrices).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

prices = client.pkm.get_set_prices("BS")
if "disambiguation" in prices:  # a code several sets share: ask again by set_id
    raise SystemExit(prices["message"])
print(prices["set_code"], "-", prices["total"], "rows, one per card and finish")
for row in prices["data"][:3]:
    print(row["id"], row["name"], "-", row["variant"])
