// GET /images/{id}: Pokémon Trading Card Game: the card's image, cacheable for 24 hours (operationId pkmGetCardImage).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { writeFile } from "node:fs/promises";
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

// The image's bytes: parseAs "arrayBuffer".
const { data: image, response } = await cardcat.GET("/images/{id}", { params: { path: { id: "pkm_7dfccec2b4149d0f" } }, parseAs: "arrayBuffer" });
if (image === undefined) throw new Error(`${response.status} ${response.statusText}`); // an error answer
await writeFile("card.jpg", new Uint8Array(image));
console.log("card.jpg:", response.headers.get("Content-Type"), image.byteLength, "bytes");
