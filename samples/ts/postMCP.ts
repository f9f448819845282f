// POST /mcp: The MCP endpoint for AI agents: the API's routes as tools (operationId postMCP).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

// One JSON-RPC message to the MCP endpoint, through the typed client; an agent would use an MCP SDK's
// client (@modelcontextprotocol/sdk), which sends the same.
const { data: answer, response } = await cardcat.POST("/mcp", {
  body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
  headers: { Accept: "application/json, text/event-stream" },
});
if (answer === undefined) throw new Error(`${response.status} ${response.statusText}`); // an error answer
const result = answer.result as { tools: { name: string }[] } | undefined; // tools/list's result
for (const tool of result?.tools ?? []) console.log(tool.name);
