# GET /sets/{set}/image: Pokémon Trading Card Game: the set's logo, cacheable for 24 hours (operationId pkmGetSetImage).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

logo = client.pkm.get_set_image("BS")  # bytes
with open("set-logo.png", "wb") as f:
    f.write(logo)
print("set-logo.png:", client.last_response.content_type, len(logo), "bytes")
