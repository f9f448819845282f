// GET /{game}/prices/{set}: The prices of every product of a set, one row per finish (operationId getSetPrices).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY. Paid: Ultra, Business or a trial.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: prices, error, response } = await cardcat.GET("/{game}/prices/{set}", { params: { path: { game: "dbs", set: "FB01" } } });
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
if ("disambiguation" in prices) throw new Error(prices.message); // a code several sets share: ask by set_id
console.log(prices.set_code, "-", prices.total, "rows, one per card and finish");
for (const row of prices.data.slice(0, 3)) console.log(row.id, row.name, "-", row.variant);
