# GET /docs: The API reference and guides, as an HTML page (operationId getDocs).
# The Python client: pip install ./clients/python (from a checkout of cardcat). A public route: no key needed.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

html = client.get_docs()  # the reference's HTML page, as a str
print(html[html.index("<title>") + len("<title>"):html.index("</title>")])
