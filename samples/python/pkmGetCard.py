# GET /cards/{id}: Pokémon Trading Card Game: one card with all its prices (operationId pkmGetCard).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

card = client.pkm.get_card("pkm_7dfccec2b4149d0f")
print(card["id"], card["card_info"]["name"], "-", card["card_info"]["set_name"])
for price in (card["market_t"] or {}).get("prices", []):
    if price["market_price"] is not None:  # null: no price
        print(f"TCGplayer {price['sub_type_name']}: {price['market_price']:.2f} USD")
