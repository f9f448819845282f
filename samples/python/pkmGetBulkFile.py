# GET /bulk/{name}: Pokémon Trading Card Game: one bulk file, as gzip bytes, resumable (operationId pkmGetBulkFile).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY.
import gzip
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

# Streamed to the file, its sha256 checked; a file already there and current is not downloaded again.
client.pkm.download_bulk_file("cards.jsonl.gz", "cards.jsonl.gz")
with gzip.open("cards.jsonl.gz", "rt", encoding="utf-8") as f:
    print(sum(1 for _ in f), "cards in", "cards.jsonl.gz")
