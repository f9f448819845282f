// GET /openapi.json: The OpenAPI 3.1 document of this API (operationId getOpenAPI).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). A public route: no key needed.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: doc, error, response } = await cardcat.GET("/openapi.json");
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
// The client types the document loosely: say what you read of it.
const info = doc.info as { title: string };
const paths = doc.paths as Record<string, Record<string, unknown>>;
console.log(info.title, "- OpenAPI", doc.openapi);
console.log(Object.values(paths).reduce((n, item) => n + Object.keys(item).length, 0), "operations");
