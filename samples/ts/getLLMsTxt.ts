// GET /llms.txt: A plain-text guide to the API for AI assistants (operationId getLLMsTxt).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). A public route: no key needed.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

// Plain text: parseAs "text".
const { data: text, response } = await cardcat.GET("/llms.txt", { parseAs: "text" });
if (text === undefined) throw new Error(`${response.status} ${response.statusText}`); // an error answer
console.log(text.split("\n")[0]);
