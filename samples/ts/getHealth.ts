// GET /health: Whether the service and its dependencies work (operationId getHealth).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). A public route: no key needed.
import { createCardcatClient, type components } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

// A 503 carries the same body: openapi-fetch gives it as error, so read the body either way.
const { data, error, response } = await cardcat.GET("/health");
const health = data ?? (response.status === 503 ? (error as components["schemas"]["Health"]) : undefined);
if (!health) throw new Error(`${response.status}`);
console.log("status:", health.status);
