# GET /games: The games served, with their route templates (operationId listGames).
# The Python client: pip install ./clients/python (from a checkout of cardcat). A public route: no key needed.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

for game in client.list_games()["data"]:
    print(game["code"], game["name"])
