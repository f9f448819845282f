// GET /bulk: Pokémon Trading Card Game: the whole-catalogue download files of the game (operationId pkmListBulkFiles).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: listing, error, response } = await cardcat.GET("/bulk");
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
for (const f of listing.files) console.log(f.name, f.content_type);
