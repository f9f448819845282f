// GET /{game}/sets/{set}: The products of one set, paginated (prices empty) (operationId getSetCards).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: page, error, response } = await cardcat.GET("/{game}/sets/{set}", { params: { path: { game: "dbs", set: "FB01" }, query: { limit: 3 } } });
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
if ("disambiguation" in page) throw new Error(page.message); // a code several sets share: ask by set_id
console.log(page.set.name, "-", page.pagination.total, "products");
for (const card of page.cards) console.log(card.id, card.card_info.name);
