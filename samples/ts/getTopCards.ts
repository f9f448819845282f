// GET /{game}/analytics/top-cards: The most expensive cards, or the fastest-growing ones (operationId getTopCards).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: top, error, response } = await cardcat.GET("/{game}/analytics/top-cards", { params: { path: { game: "dbs" }, query: { metric: "price", source: "tcg", limit: 3 } } });
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
for (const card of top.top_cards) console.log(card.id, card.card_info.name);
