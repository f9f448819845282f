# GET /{game}/cards/{id}/history: A card's daily prices on one marketplace, oldest first (operationId getCardHistory).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

history = client.dbs.get_card_history("dbs_3ef29751ae2b88a4", source="tcg", days=30)
print(history["id"], history["source"], history["currency"], history["days"], "days")
# format="csv" answers the same points as CSV text
