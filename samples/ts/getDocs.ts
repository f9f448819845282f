// GET /docs: The API reference and guides, as an HTML page (operationId getDocs).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). A public route: no key needed.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

// The reference's HTML page: parseAs "text".
const { data: html, response } = await cardcat.GET("/docs", { parseAs: "text" });
if (html === undefined) throw new Error(`${response.status} ${response.statusText}`); // an error answer
console.log(html.slice(html.indexOf("<title>") + "<title>".length, html.indexOf("</title>")));
