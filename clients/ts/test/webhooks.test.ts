// verifyWebhook on the vectors the server's own signing made
// (clients/testdata/webhook-signatures.json, kept fresh by the Go test
// TestWebhookVectors): each is accepted or refused for the reason the
// server's Verify gives. TestTypeScriptClient passes the file's path in
// CARDCAT_WEBHOOK_VECTORS; run from clients/ts (npm test), it is found
// beside the sources.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { verifyWebhook, WebhookSignatureError } from "../src/index.js";

interface Vector {
  name: string;
  secret: string;
  header: string;
  body: string;
  now: number;
  tolerance: number | null;
  error: "no_signature" | "bad_signature" | "too_old" | null;
}

const file = process.env.CARDCAT_WEBHOOK_VECTORS ?? new URL("../../../testdata/webhook-signatures.json", import.meta.url);
const { vectors } = JSON.parse(readFileSync(file, "utf8")) as { vectors: Vector[] };

test("there are vectors", () => assert.ok(vectors.length >= 20));

for (const v of vectors) {
  const options = (clock: () => Date | number) =>
    v.tolerance === null ? { now: clock } : { toleranceSeconds: v.tolerance, now: clock };
  const check = async (body: string | Uint8Array, clock: () => Date | number) => {
    const verified = verifyWebhook(v.secret, v.header, body, options(clock));
    if (v.error === null) {
      await verified;
    } else {
      await assert.rejects(verified, (err: unknown) => err instanceof WebhookSignatureError && err.reason === v.error);
    }
  };
  test(`${v.name} (body as a string, clock as a Date)`, () => check(v.body, () => new Date(v.now * 1000)));
  test(`${v.name} (body as bytes, clock in ms)`, () => check(new TextEncoder().encode(v.body), () => v.now * 1000));
}

test("the secret is required", async () => {
  await assert.rejects(verifyWebhook("", "t=1,v1=00", ""), TypeError);
});

test("the system clock by default: a delivery signed long ago is too old", async () => {
  const v = vectors[0]!;
  if (v.now * 1000 < Date.now() - 301_000) {
    await assert.rejects(verifyWebhook(v.secret, v.header, v.body), (err: unknown) => err instanceof WebhookSignatureError && err.reason === "too_old");
  }
});
