// GET /{game}/bulk: The whole-catalogue download files of the game (operationId listBulkFiles).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: listing, error, response } = await cardcat.GET("/{game}/bulk", { params: { path: { game: "dbs" } } });
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
for (const f of listing.files) console.log(f.name, f.content_type);
