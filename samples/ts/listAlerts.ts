// GET /alerts: Your account's price alerts, with their state, oldest first (operationId listAlerts).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

for (let page = 1; ; page++) {
  const limit = 100; // up to 1000
  const { data: answer, error, response } = await cardcat.GET("/alerts", { params: { query: { page, limit } } });
  if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
  if (page === 1) console.log(answer.pagination.total, "alerts");
  for (const alert of answer.alerts) {
    const rule =
      alert.rule === "move" ? `move ${alert.percent}%` : `${alert.rule} ${alert.threshold?.toFixed(2)} ${alert.currency}`;
    const state = (alert.paused ? "paused" : alert.armed ? "armed" : "fired") + (alert.email ? ", emails" : "");
    console.log(alert.id, alert.card_id, alert.source, alert.variant, rule, state);
  }
  if (page >= answer.pagination.total_pages) break;
}
