// GET /search: Pokémon Trading Card Game: cards by name or card number, with their prices (operationId pkmSearchCards).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: found, error, response } = await cardcat.GET("/search", { params: { query: { q: "Alakazam", limit: 3 } } });
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
console.log(found.pagination.total, "cards match", found.query);
for (const card of found.results) console.log(card.id, card.card_info.name);
