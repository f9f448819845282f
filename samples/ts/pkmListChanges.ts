// GET /changes: Pokémon Trading Card Game: the cards whose detail body changed after a time, to keep a copy in sync (operationId pkmListChanges).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const since = "2099-01-01T00:00:00Z";
for (let page = 1; ; page++) {
  const { data: changes, error, response } = await cardcat.GET("/changes", { params: { query: { since, page } } });
  if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
  console.log(changes.changed.length, "cards changed;", changes.pagination.total, "in all");
  if (page >= changes.pagination.total_pages) break; // keep changes.until: the since of your next call
}
