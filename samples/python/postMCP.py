# POST /mcp: The MCP endpoint for AI agents: the API's routes as tools (operationId postMCP).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

# One JSON-RPC message to the MCP endpoint (an MCP SDK's client does the same for an agent).
answer = client.post_mcp({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
for tool in answer["result"]["tools"]:
    print(tool["name"])
