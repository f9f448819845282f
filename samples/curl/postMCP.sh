#!/bin/sh
# POST /mcp: The MCP endpoint for AI agents: the API's routes as tools (operationId postMCP).
# The key is read from CARDCAT_API_KEY.
# -f: an error status (its JSON body: error, message) fails the command.

# One JSON-RPC message (an MCP SDK's client sends the same for an agent): the tools.
curl -fsS -X POST "${CARDCAT_URL:-http://localhost:8080}/mcp" \
  -H "X-API-Key: $CARDCAT_API_KEY" \
  -H "Content-Type: application/json" \
  -H "Accept: application/json, text/event-stream" \
  -d '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
