// GET /cards/cardmarket/{idProduct}: Pokémon Trading Card Game: the card of a Cardmarket product, by its idProduct (operationId pkmGetCardByCardmarketProduct).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: card, error, response } = await cardcat.GET("/cards/cardmarket/{idProduct}", { params: { path: { idProduct: 273696 } } });
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
console.log(card.id, card.card_info.name, "-", card.card_info.set_name);
