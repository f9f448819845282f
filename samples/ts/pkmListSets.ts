// GET /sets: Pokémon Trading Card Game: every set of the game that has products, newest first (operationId pkmListSets).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: sets, error, response } = await cardcat.GET("/sets");
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
console.log(sets.total, "sets");
for (const s of sets.data.slice(0, 3)) console.log(s.set_id, s.set_code, s.name);
