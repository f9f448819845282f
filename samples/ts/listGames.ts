// GET /games: The games served, with their route templates (operationId listGames).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). A public route: no key needed.
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

const { data: games, error, response } = await cardcat.GET("/games");
if (error) throw new Error(`${response.status} ${error.error}: ${error.message}`);
for (const game of games.data) console.log(game.code, game.name);
