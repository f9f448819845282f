# GET /cards/{id}/history: Pokémon Trading Card Game: a card's daily prices on one marketplace, oldest first (operationId pkmGetCardHistory).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

history = client.pkm.get_card_history("pkm_7dfccec2b4149d0f", source="tcg", days=30)
print(history["id"], history["source"], history["currency"], history["days"], "days")
# format="csv" answers the same points as CSV text
