// GET /sets/{set}/completion-value: Pokémon Trading Card Game: what one copy of every card of a set costs (operationId pkmGetSetCompletionValue).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: value, error, response } = await cardcat.GET("/sets/{set}/completion-value", { params: { path: { set: "BS" } } });
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
if ("disambiguation" in value) throw new Error(value.message); // a code several sets share: ask by set_id
const cost = value.completion_cost.market_t;
console.log(value.set_info.name, "-", value.set_info.total_cards, "cards");
if (cost.market_estimate !== null) {
  console.log(`one of each at TCGplayer market prices: ${cost.market_estimate.toFixed(2)} ${cost.currency}`);
}
