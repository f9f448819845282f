// The client against a live `cardcat serve`, started by the Go test
// TestTypeScriptClient (clients/clients_test.go), which passes its address
// and keys in the environment:
//
//   CARDCAT_BASE_URL     the server
//   CARDCAT_KEY          a Free account's key
//   CARDCAT_LIMITED_KEY  the key of an account limited to 2 requests an hour, 5 a day
import assert from "node:assert/strict";
import { test } from "node:test";

import { createCardcatClient, rateLimit, type ErrorBody } from "../src/index.js";

function env(name: string): string {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set: run this through the Go test TestTypeScriptClient`);
  }
  return v;
}

const baseUrl = env("CARDCAT_BASE_URL");
const client = createCardcatClient({ baseUrl, apiKey: env("CARDCAT_KEY") });

test("card detail", async () => {
  const { data, error, response } = await client.GET("/{game}/cards/{id}", {
    params: { path: { game: "dbs", id: "dbs_b8900e61064a48cb" } },
  });
  assert.equal(error, undefined);
  assert.equal(response.status, 200);
  assert.ok(data);
  assert.equal(data.id, "dbs_b8900e61064a48cb");
  assert.match(data.card_info.name, /^Vegeta - FB03-020/);
  assert.ok(data.market_t, "TCGplayer prices");
  assert.ok(data.market_t.prices.length > 0);
  const limits = rateLimit(response);
  assert.ok(limits);
  assert.equal(limits.limitHour, 100, "the Free plan's hourly limit");
  assert.equal(limits.retryAfter, undefined);
});

test("search", async () => {
  const { data, error } = await client.GET("/{game}/search", {
    params: { path: { game: "dbs" }, query: { q: "vegeta", limit: 2 } },
  });
  assert.equal(error, undefined);
  assert.ok(data);
  assert.equal(data.query, "vegeta");
  assert.equal(data.results.length, 2);
  for (const card of data.results) {
    assert.match(card.card_info.name, /vegeta/i);
  }
  assert.equal(data.pagination.limit, 2);
  assert.ok(data.pagination.total >= 2);
});

test("an unknown card is 404 Card not found", async () => {
  const { data, error, response } = await client.GET("/{game}/cards/{id}", {
    params: { path: { game: "dbs", id: "dbs_0000000000000000" } },
  });
  assert.equal(data, undefined);
  assert.equal(response.status, 404);
  assert.ok(error);
  assert.equal(error.error, "Card not found");
});

test("401 without a key", async () => {
  const anonymous = createCardcatClient({ baseUrl });
  const { data, error, response } = await anonymous.GET("/{game}/sets", { params: { path: { game: "dbs" } } });
  assert.equal(data, undefined);
  assert.equal(response.status, 401);
  assert.ok(error);
  const body: ErrorBody = error;
  assert.equal(body.error, "API key required");
  assert.match(body.message, /X-API-Key/);
  assert.equal(response.headers.get("WWW-Authenticate"), 'Bearer realm="cardcat"');
});

test("429 with Retry-After and the X-RateLimit-* headers", async () => {
  const limited = createCardcatClient({ baseUrl, apiKey: env("CARDCAT_LIMITED_KEY") });
  // 2 an hour, 5 a day: the third request of an hour is refused, and within
  // 6 requests one is, even across the turn of an hour.
  for (let i = 1; i <= 6; i++) {
    const { error, response } = await limited.GET("/{game}/sets", { params: { path: { game: "mtg" } } });
    if (response.status !== 429) {
      assert.equal(response.status, 200, `request ${i}`);
      continue;
    }
    assert.ok(i >= 3, `refused at request ${i}`);
    assert.ok(error);
    assert.equal(error.error, "Rate limit exceeded");
    assert.ok(error.limits);
    assert.equal(error.limits.hourly.limit, 2);
    const limits = rateLimit(response);
    assert.ok(limits, "X-RateLimit-* headers");
    assert.equal(limits.limitHour, 2);
    assert.equal(limits.limitDay, 5);
    assert.ok(limits.remainingHour === 0 || limits.remainingDay === 0);
    assert.ok(limits.retryAfter !== undefined && limits.retryAfter >= 1 && limits.retryAfter <= 86400, `Retry-After ${limits.retryAfter}`);
    return;
  }
  assert.fail("no 429 in 6 requests of an account limited to 2 an hour");
});

test("alerts: a page of the account's, none for this Free account", async () => {
  const { data, error, response } = await client.GET("/alerts", { params: { query: { limit: 10 } } });
  assert.equal(error, undefined);
  assert.equal(response.status, 200);
  assert.ok(data);
  assert.deepEqual(data.alerts, []);
  assert.deepEqual(data.pagination, { page: 1, limit: 10, total: 0, total_pages: 0 });
  assert.equal(response.headers.get("Cache-Control"), "private, no-cache");
});
