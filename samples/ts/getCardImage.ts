// GET /{game}/images/{id}: The card's image, cacheable for 24 hours (operationId getCardImage).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { writeFile } from "node:fs/promises";
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

// The image's bytes: parseAs "arrayBuffer".
const { data: image, response } = await cardcat.GET("/{game}/images/{id}", { params: { path: { game: "dbs", id: "dbs_3ef29751ae2b88a4" } }, parseAs: "arrayBuffer" });
if (image === undefined) throw new Error(`${response.status} ${response.statusText}`); // an error answer
await writeFile("card.jpg", new Uint8Array(image));
console.log("card.jpg:", response.headers.get("Content-Type"), image.byteLength, "bytes");
