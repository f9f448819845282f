# GET /changes: Pokémon Trading Card Game: the cards whose detail body changed after a time, to keep a copy in sync (operationId pkmListChanges).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

since = "2099-01-01T00:00:00Z"  # keep the last page's "until" and pass it as the next since
for page in client.pkm.iter_change_pages(since):
    print(len(page["changed"]), "cards changed;", page["pagination"]["total"], "in all")
