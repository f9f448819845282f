# GET /health: Whether the service and its dependencies work (operationId getHealth).
# The Python client: pip install ./clients/python (from a checkout of cardcat). A public route: no key needed.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

health = client.get_health()  # a 503 with the same body is answered too: read "status"
print("status:", health["status"])
