# GET /{game}/sets: Every set of the game that has products, newest first (operationId listSets).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

sets = client.dbs.list_sets()
print(sets["total"], "sets")
for s in sets["data"][:3]:
    print(s["set_id"], s["set_code"], s["name"])
