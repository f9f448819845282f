// Verifying cardcat's webhook deliveries: every delivery carries
//
//   Cardcat-Signature: t=1795867190,v1=25a9f6ca...
//
// t is the Unix time of the attempt; v1 the hex HMAC-SHA256, keyed by the
// endpoint's whole signing secret ("whsec_..."), of t, ".", and the body's
// bytes. During a secret's rotation a delivery carries one v1 per secret.
// Web Crypto (globalThis.crypto.subtle) computes it: Node 20 and later,
// Deno, Bun, Cloudflare Workers and browsers have it.

/** The header that carries a delivery's signature. */
export const WEBHOOK_SIGNATURE_HEADER = "Cardcat-Signature";

/** How far a delivery's t may be from the receiver's clock, in seconds (5 minutes). */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/** Why a delivery is refused. */
export type WebhookSignatureFailure = "no_signature" | "bad_signature" | "too_old";

/** A delivery verifyWebhook refuses; `reason` says why. Answer it with a 4xx and do not act on it. */
export class WebhookSignatureError extends Error {
  readonly reason: WebhookSignatureFailure;
  constructor(reason: WebhookSignatureFailure) {
    super(
      {
        no_signature: "no webhook signature (t=... and v1=...) in the header",
        bad_signature: "the webhook signature does not match the body",
        too_old: "the webhook signature's time is outside the tolerance (a replay?)",
      }[reason],
    );
    this.name = "WebhookSignatureError";
    this.reason = reason;
  }
}

export interface VerifyWebhookOptions {
  /** How far t may be from now, in seconds; default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The clock: a Date or milliseconds since the epoch; default Date.now. */
  now?: () => Date | number;
}

const int64 = /^[+-]?\d+$/;
const hexBytes = /^(?:[0-9a-fA-F]{2})*$/;

/**
 * Checks a webhook delivery before its body is read as JSON: `header` is its
 * Cardcat-Signature value, `body` its bytes exactly as received (a string is
 * taken as UTF-8: read the raw body, not a re-serialised JSON value), `secret`
 * the endpoint's signing secret. Resolves when one v1 matches (compared in
 * constant time) and t is within the tolerance of now; rejects with a
 * WebhookSignatureError otherwise. Delivery is at least once: use the event's
 * `id` to do its work once.
 */
export async function verifyWebhook(
  secret: string,
  header: string | null | undefined,
  body: string | Uint8Array | ArrayBuffer,
  options: VerifyWebhookOptions = {},
): Promise<void> {
  if (!secret) throw new TypeError("verifyWebhook: the endpoint's secret is required");
  const tolerance = options.toleranceSeconds && options.toleranceSeconds > 0 ? options.toleranceSeconds : DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  let ts: string | undefined;
  const sigs: string[] = [];
  for (const part of (header ?? "").split(",")) {
    const p = part.trim();
    const eq = p.indexOf("=");
    if (eq < 0) continue;
    const k = p.slice(0, eq);
    const v = p.slice(eq + 1);
    if (k === "t") ts = v;
    else if (k === "v1" && hexBytes.test(v)) sigs.push(v.toLowerCase());
  }
  if (ts === undefined || !int64.test(ts) || sigs.length === 0) throw new WebhookSignatureError("no_signature");
  const seconds = BigInt(ts);
  if (seconds > 9223372036854775807n || seconds < -9223372036854775808n) throw new WebhookSignatureError("no_signature");

  const enc = new TextEncoder();
  const bytes = typeof body === "string" ? enc.encode(body) : body instanceof Uint8Array ? body : new Uint8Array(body);
  const signed = new Uint8Array(ts.length + 1 + bytes.length);
  signed.set(enc.encode(ts + "."), 0);
  signed.set(bytes, ts.length + 1);
  const key = await globalThis.crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", key, signed));
  const want = Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
  let match = false;
  for (const sig of sigs) {
    // Every v1 is compared, each in time that does not depend on where it differs.
    if (sig.length === want.length) {
      let diff = 0;
      for (let i = 0; i < want.length; i++) diff |= sig.charCodeAt(i) ^ want.charCodeAt(i);
      if (diff === 0) match = true;
    }
  }
  if (!match) throw new WebhookSignatureError("bad_signature");
  const clock = options.now ? options.now() : Date.now();
  const nowMs = clock instanceof Date ? clock.getTime() : clock;
  // The age in milliseconds, as the server's Verify measures it.
  const age = nowMs - Number(seconds) * 1000;
  if (age > tolerance * 1000 || age < -tolerance * 1000) throw new WebhookSignatureError("too_old");
}
