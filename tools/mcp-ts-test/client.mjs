// Drives cardcat's POST /mcp with the TypeScript MCP SDK's client: connects
// (initialize), lists the tools, makes the calls it is given, and prints what
// it saw as one JSON object on stdout. internal/httpapi's
// TestMCPTypeScriptClient runs it against a live server and checks the output.
//
// node client.mjs URL PLAN, PLAN being JSON:
//   {"headers": {"X-API-Key": "pk_test_..."}, "calls": [{"name": "get_card", "arguments": {...}}]}
// prints {"tools": [...], "results": [{isError, text, structuredContent, meta}]}
// or, when connecting or a request fails, {"error": "..."}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, planJSON] = process.argv.slice(2);
const plan = JSON.parse(planJSON);

const client = new Client({ name: "cardcat-ts-test", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: plan.headers ?? {} },
});

const out = {};
try {
  await client.connect(transport);
  out.tools = (await client.listTools()).tools;
  out.results = [];
  for (const call of plan.calls ?? []) {
    const res = await client.callTool({ name: call.name, arguments: call.arguments });
    out.results.push({
      isError: res.isError ?? false,
      text: res.content.map((c) => c.text).join(""),
      structuredContent: res.structuredContent ?? null,
      meta: res._meta ?? null,
    });
  }
} catch (err) {
  out.error = String(err?.message ?? err);
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(out) + "\n");
