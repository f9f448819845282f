# GET /images/{id}: Pokémon Trading Card Game: the card's image, cacheable for 24 hours (operationId pkmGetCardImage).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

image = client.pkm.get_card_image("pkm_7dfccec2b4149d0f")  # bytes
with open("card.jpg", "wb") as f:
    f.write(image)
print("card.jpg:", client.last_response.content_type, len(image), "bytes")
