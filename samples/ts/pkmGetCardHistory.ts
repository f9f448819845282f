// GET /cards/{id}/history: Pokémon Trading Card Game: a card's daily prices on one marketplace, oldest first (operationId pkmGetCardHistory).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: history, error, response } = await cardcat.GET("/cards/{id}/history", { params: { path: { id: "pkm_7dfccec2b4149d0f" }, query: { source: "tcg", days: 30 } } });
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
if (typeof history === "string") throw new Error("a CSV answer: format is json by default");
console.log(history.id, history.source, history.currency, history.days, "days");
// format: "csv" (with parseAs: "text") answers the same points as CSV text
