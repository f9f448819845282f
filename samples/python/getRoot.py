# GET /: What the service is, how to authenticate, every endpoint (operationId getRoot).
# The Python client: pip install ./clients/python (from a checkout of cardcat). A public route: no key needed.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

root = client.get_root()
print(root["name"], "-", root["status"])
print(len(root["endpoints"]), "endpoints listed")
