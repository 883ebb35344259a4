/**
 * Legacy MCP sessions (2025-11-25 and earlier) without a session store of their own. A session id
 * carries when it was issued, 128 random bits and an HMAC tag keyed with the SHA-256 of the API key
 * that opened it: any isolate checks an id against the request's key without a round trip, a leaked
 * id is useless with another key, and an id expires SESSION_TTL_MS after it was issued.
 *
 * What the client declared at initialize that it answers (elicitation, sampling, roots: client-asks.ts)
 * travels in the id too, as bits under the tag, so no isolate needs storage to know whether it may ask.
 * What a session keeps besides (its log level, whether it was deleted) lives in the tenant's ledger,
 * on the shard of the session's reference (session-store.ts), so every isolate sees the same; nothing
 * of a session stays in an isolate.
 */
import { fromBase64Url, toBase64Url } from "../base64url";
import { MAX_ASK_FLAGS } from "../client-asks";

const encoder = new TextEncoder();
const RANDOM_BYTES = 16;
const TAG_BYTES = 16;
const REF_CHARS = 22;
const TAG_DOMAIN = "toolgate/mcp-session/v2";
const REF_DOMAIN = "toolgate/mcp-session-ref/v1";
const MAX_ID_LENGTH = 80;

/** A session lives this long from initialize; its client then gets 404 and initializes again. */
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

/**
 * A checked session id: the reference its state and its calls are known by, when it expires, what its client answers.
 */
export interface Session {
  /** A digest of the id (the id itself is never stored): the key of its ledger row and its call ids' prefix. */
  ref: string;
  expiresAt: number;
  /** The client-asks.ts bits of what the client declared at initialize (0: it cannot be asked). */
  asks: number;
}

/**
 * The tag covers the capability bits when there are any, and the curated endpoint (/mcp/<name>) the
 * session was opened at, so its id is refused at /mcp and at other endpoints (ids without either keep
 * the earlier form).
 */
async function tagOf(
  issued: string,
  random: string,
  asks: string,
  keyHash: Uint8Array,
  endpoint: string,
): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", keyHash, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const at = endpoint ? ` at /mcp/${endpoint}` : "";
  const mac = await crypto.subtle.sign(
    "HMAC",
    key,
    encoder.encode(`${TAG_DOMAIN}.${issued}.${random}${asks ? `.${asks}` : ""}${at}`),
  );
  return new Uint8Array(mac).slice(0, TAG_BYTES);
}

async function refOf(id: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(`${REF_DOMAIN}.${id}`)));
  return toBase64Url(digest).slice(0, REF_CHARS);
}

/**
 * A new session id for the key with this hash: `<issued, base 36 seconds>.<random>.<tag>`, and
 * `.<asks, base 36>` when its client answers anything (client-asks.ts). `endpoint`: the curated
 * endpoint it is opened at ("" for /mcp).
 */
export async function createSessionId(keyHash: Uint8Array, now = Date.now(), asks = 0, endpoint = ""): Promise<string> {
  const issued = Math.floor(now / 1000).toString(36);
  const random = toBase64Url(crypto.getRandomValues(new Uint8Array(RANDOM_BYTES)));
  const flags = asks > 0 ? asks.toString(36) : "";
  const id = `${issued}.${random}.${toBase64Url(await tagOf(issued, random, flags, keyHash, endpoint))}`;
  return flags ? `${id}.${flags}` : id;
}

/**
 * The session, when the id was made for this key at this endpoint ("" for /mcp) and has not expired;
 * compares tags in constant time.
 * Only the spelling createSessionId writes is taken (no trailing dot, padding, leading zero or other
 * encoding of the same parts): the session's state is keyed by its id, so a second spelling of a
 * valid id would be a second session, alive after the first was deleted.
 */
export async function checkSessionId(
  id: string,
  keyHash: Uint8Array,
  now = Date.now(),
  endpoint = "",
): Promise<Session | undefined> {
  if (id.length > MAX_ID_LENGTH) return undefined;
  const [issued = "", random = "", tagPart = "", flags = ""] = id.split(".");
  if (!/^[0-9a-z]{1,10}$/.test(issued)) return undefined;
  const asks = flags === "" ? 0 : /^[1-9a-z][0-9a-z]?$/.test(flags) ? parseInt(flags, 36) : -1;
  const seconds = parseInt(issued, 36);
  if (id !== `${seconds.toString(36)}.${random}.${tagPart}${asks > 0 ? `.${asks.toString(36)}` : ""}`) return undefined;
  const expiresAt = seconds * 1000 + SESSION_TTL_MS;
  const tag = fromBase64Url(tagPart);
  if (asks > MAX_ASK_FLAGS || now >= expiresAt || tag?.length !== TAG_BYTES) return undefined;
  if (fromBase64Url(random)?.length !== RANDOM_BYTES) return undefined;
  if (!crypto.subtle.timingSafeEqual(tag, await tagOf(issued, random, flags, keyHash, endpoint))) return undefined;
  return { ref: await refOf(id), expiresAt, asks };
}
