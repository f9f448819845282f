// GET /{game}/cards: Up to 100 cards by their ids, in one request (operationId getCards).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: batch, error, response } = await cardcat.GET("/{game}/cards", { params: { path: { game: "dbs" }, query: { ids: "dbs_3ef29751ae2b88a4" } } }); // up to 100 ids, comma-separated
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
for (const card of batch.data) console.log(card.id, card.card_info.name, "-", card.card_info.set_name);
console.log(batch.not_found.length, "not found");
