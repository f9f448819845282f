// GET /cards/{id}: Pokémon Trading Card Game: one card with all its prices (operationId pkmGetCard).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: card, error, response } = await cardcat.GET("/cards/{id}", { params: { path: { id: "pkm_7dfccec2b4149d0f" } } });
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
console.log(card.id, card.card_info.name, "-", card.card_info.set_name);
for (const price of card.market_t?.prices ?? []) {
  if (price.market_price !== null) console.log(`TCGplayer ${price.sub_type_name}: ${price.market_price.toFixed(2)} USD`);
}
