# GET /{game}/sets/{set}/completion-value: What one copy of every card of a set costs (operationId getSetCompletionValue).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

value = client.dbs.get_set_completion_value("FB01")
if "disambiguation" in value:  # a code several sets share: ask again by set_id
    raise SystemExit(value["message"])
cost = value["completion_cost"]["market_t"]
print(value["set_info"]["name"], "-", value["set_info"]["total_cards"], "cards")
if cost["market_estimate"] is not None:
    print(f"one of each at TCGplayer market prices: {cost['market_estimate']:.2f} {cost['currency']}")
