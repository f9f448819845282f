// GET /sets/{set}/image: Pokémon Trading Card Game: the set's logo, cacheable for 24 hours (operationId pkmGetSetImage).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { writeFile } from "node:fs/promises";
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

// The logo's bytes: parseAs "arrayBuffer".
const { data: logo, response } = await cardcat.GET("/sets/{set}/image", { params: { path: { set: "BS" } }, parseAs: "arrayBuffer" });
if (logo === undefined) throw new Error(`${response.status} ${response.statusText}`); // an error answer
await writeFile("set-logo.png", new Uint8Array(logo));
console.log("set-logo.png:", response.headers.get("Content-Type"), logo.byteLength, "bytes");
