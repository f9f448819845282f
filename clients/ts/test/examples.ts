// The README's examples, type-checked with the client (tsc -p .) and not run:
// they need a server and a key.
import { createCardcatClient, rateLimit } from "../src/index.js";

export async function examples(): Promise<void> {
  const cardcat = createCardcatClient({ baseUrl: "http://localhost:8080", apiKey: process.env.CARDCAT_KEY });

  // One card with its prices.
  const { data: card } = await cardcat.GET("/{game}/cards/{id}", {
    params: { path: { game: "dbs", id: "dbs_b8900e61064a48cb" } },
  });
  console.log(card?.card_info.name, card?.market_t?.prices);

  // Search by name or card number.
  const { data: found } = await cardcat.GET("/{game}/search", {
    params: { path: { game: "mtg" }, query: { q: "lightning", limit: 10 } },
  });
  for (const c of found?.results ?? []) console.log(c.id, c.card_info.name);

  const { data, error, response } = await cardcat.GET("/{game}/sets", { params: { path: { game: "dbs" } } });
  if (error) {
    if (response.status === 429) {
      const limits = rateLimit(response); // X-RateLimit-* and Retry-After
      console.log(`${error.message}; retry in ${limits?.retryAfter} s`);
    } else {
      console.log(response.status, error.error, error.message); // e.g. 401 "API key required"
    }
  } else {
    const limits = rateLimit(response);
    console.log(`${data.total} sets; ${limits?.remainingHour} requests left this hour`);
  }
}
