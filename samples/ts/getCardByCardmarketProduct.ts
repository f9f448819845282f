// GET /{game}/cards/cardmarket/{idProduct}: The card of a Cardmarket product, by its idProduct (operationId getCardByCardmarketProduct).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: card, error, response } = await cardcat.GET("/{game}/cards/cardmarket/{idProduct}", { params: { path: { game: "dbs", idProduct: 624949 } } });
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
console.log(card.id, card.card_info.name, "-", card.card_info.set_name);
