# GET /llms.txt: A plain-text guide to the API for AI assistants (operationId getLLMsTxt).
# The Python client: pip install ./clients/python (from a checkout of cardcat). A public route: no key needed.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

text = client.get_llms_txt()  # plain text, as a str
print(text.splitlines()[0])
