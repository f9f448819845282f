// GET /: What the service is, how to authenticate, every endpoint (operationId getRoot).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). A public route: no key needed.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: root, error, response } = await cardcat.GET("/");
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
console.log(root.name, "-", root.status);
console.log(Object.keys(root.endpoints).length, "endpoints listed");
