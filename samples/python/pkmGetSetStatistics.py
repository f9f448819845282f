# GET /sets/{set}/statistics: Pokémon Trading Card Game: price statistics of a set's cards in one finish, and its rarity breakdown (operationId pkmGetSetStatistics).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

stats = client.pkm.get_set_statistics("BS")
if "disambiguation" in stats:  # a code several sets share: ask again by set_id
    raise SystemExit(stats["message"])
print(stats["set_info"]["name"], "-", stats["set_info"]["total_cards"], "cards")
top = stats["price_statistics"]["market_t"]["most_expensive"]
if top is not None:
    print(f"most expensive on TCGplayer: {top['name']} ({top['price']:.2f} USD)")
