# GET /openapi.json: The OpenAPI 3.1 document of this API (operationId getOpenAPI).
# The Python client: pip install ./clients/python (from a checkout of cardcat). A public route: no key needed.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

doc = client.get_openapi()
print(doc["info"]["title"], "- OpenAPI", doc["openapi"])
print(sum(len(item) for item in doc["paths"].values()), "operations")
