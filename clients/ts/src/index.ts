// A thin typed client of the cardcat API. The types (./schema.ts) are generated
// from the API's OpenAPI document by openapi-typescript; requests go through
// openapi-fetch, which checks paths, parameters and bodies against them.
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  verifyWebhook,
  WEBHOOK_SIGNATURE_HEADER,
  WebhookSignatureError,
  type VerifyWebhookOptions,
  type WebhookSignatureFailure,
} from "./webhooks.js";

type Schemas = components["schemas"];
export type Card = Schemas["Card"];
export type SearchResult = Schemas["SearchResult"];
export type SetList = Schemas["SetList"];
export type SetCards = Schemas["SetCards"];
/** Every error answer: `{error, message, ...}`; test on `error`, which is stable. */
export type ErrorBody = Schemas["Error"];
/** A prefixed game's path prefix: `dbs`, `mtg` or `op`. The base game (Pokémon) has paths of its own, without a prefix: `/sets`, `/cards/{id}`, ... */
export type Game = components["parameters"]["game"];

/** A cardcat client: openapi-fetch's, typed by the API's paths. */
export type CardcatClient = Client<paths>;

export interface CardcatClientOptions extends Omit<ClientOptions, "baseUrl"> {
  /** The server's address, such as `http://localhost:8080` (no trailing slash needed). */
  baseUrl: string;
  /** Your key (`pk_live_...` or `pk_test_...`), sent as `X-API-Key` on every request. */
  apiKey?: string;
}

/**
 * Returns a client of the server at `baseUrl`. Every request answers
 * `{data, error, response}`: `data` on a 2xx, `error` (the error body) otherwise,
 * and `response` always (its headers carry the rate limits: see rateLimit).
 */
export function createCardcatClient(options: CardcatClientOptions): CardcatClient {
  const { baseUrl, apiKey, headers, ...rest } = options;
  const client = createClient<paths>({ ...rest, baseUrl: baseUrl.replace(/\/+$/, ""), headers });
  if (apiKey !== undefined) {
    client.use({
      onRequest({ request }) {
        request.headers.set("X-API-Key", apiKey);
        return request;
      },
    });
  }
  return client;
}

/** The rate-limit headers of an answer: the pool's limits and what is left after this request. */
export interface RateLimit {
  limitHour: number;
  remainingHour: number;
  limitDay: number;
  remainingDay: number;
  /** Seconds to wait before retrying: on a 429 (and a 503), else undefined. */
  retryAfter?: number;
}

/**
 * Reads the X-RateLimit-* and Retry-After headers of an answer. Returns
 * undefined when they are absent (a server without rate limiting).
 */
export function rateLimit(response: Response): RateLimit | undefined {
  const int = (name: string): number | undefined => {
    const v = response.headers.get(name);
    return v !== null && /^\d+$/.test(v) ? Number(v) : undefined;
  };
  const limitHour = int("X-RateLimit-Limit-Hour");
  const remainingHour = int("X-RateLimit-Remaining-Hour");
  const limitDay = int("X-RateLimit-Limit-Day");
  const remainingDay = int("X-RateLimit-Remaining-Day");
  if (limitHour === undefined || remainingHour === undefined || limitDay === undefined || remainingDay === undefined) {
    return undefined;
  }
  const retryAfter = int("Retry-After");
  return retryAfter === undefined
    ? { limitHour, remainingHour, limitDay, remainingDay }
    : { limitHour, remainingHour, limitDay, remainingDay, retryAfter };
}
