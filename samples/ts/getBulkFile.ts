// GET /{game}/bulk/{name}: One bulk file, as gzip bytes, resumable (operationId getBulkFile).
// The TypeScript client, cardcat-client (clients/ts; see its README to install it). The key is read from CARDCAT_API_KEY.
import { createReadStream, createWriteStream } from "node:fs";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream } from "node:stream/web";
import { createGunzip } from "node:zlib";
import { createCardcatClient } from "cardcat-client";

const cardcat = createCardcatClient({
  baseUrl: process.env.CARDCAT_URL ?? "http://localhost:8080",
  apiKey: process.env.CARDCAT_API_KEY,
});

// parseAs "stream": the body is streamed to the file, not held in memory.
const { data: body, response } = await cardcat.GET("/{game}/bulk/{name}", { params: { path: { game: "dbs", name: "cards.jsonl.gz" } }, parseAs: "stream" });
if (body === undefined) throw new Error(`${response.status} ${response.statusText}`); // an error answer
await pipeline(Readable.fromWeb(body as ReadableStream), createWriteStream("cards.jsonl.gz"));
let cards = 0;
for await (const _ of createInterface({ input: createReadStream("cards.jsonl.gz").pipe(createGunzip()) })) cards++;
console.log(cards, "cards in", "cards.jsonl.gz");
