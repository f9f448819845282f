// GET /sets/trending: Pokémon Trading Card Game: the sets whose Cardmarket prices moved most (7-day against 30-day average) (operationId pkmGetTrendingSets).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: trending, error, response } = await cardcat.GET("/sets/trending", { params: { query: { period: "7d", limit: 3 } } });
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
for (const s of trending.trending_sets) console.log(s.set_code, s.set_name, s.market_c.price_change);
