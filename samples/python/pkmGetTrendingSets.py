# GET /sets/trending: Pokémon Trading Card Game: the sets whose Cardmarket prices moved most (7-day against 30-day average) (operationId pkmGetTrendingSets).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

trending = client.pkm.get_trending_sets(period="7d", limit=3)
for s in trending["trending_sets"]:
    print(s["set_code"], s["set_name"], s["market_c"]["price_change"])
