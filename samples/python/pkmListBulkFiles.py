# GET /bulk: Pokémon Trading Card Game: the whole-catalogue download files of the game (operationId pkmListBulkFiles).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

listing = client.pkm.list_bulk_files()
for f in listing["files"]:
    print(f["name"], f["content_type"])
