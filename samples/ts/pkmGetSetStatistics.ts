// GET /sets/{set}/statistics: Pokémon Trading Card Game: price statistics of a set's cards in one finish, and its rarity breakdown (operationId pkmGetSetStatistics).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: stats, error, response } = await cardcat.GET("/sets/{set}/statistics", { params: { path: { set: "BS" } } });
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
if ("disambiguation" in stats) throw new Error(stats.message); // a code several sets share: ask by set_id
console.log(stats.set_info.name, "-", stats.set_info.total_cards, "cards");
const top = stats.price_statistics.market_t.most_expensive;
if (top) console.log(`most expensive on TCGplayer: ${top.name} (${top.price.toFixed(2)} USD)`);
