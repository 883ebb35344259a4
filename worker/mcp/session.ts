/**
 * Legacy MCP sessions (2025-11-25 and earlier) without a session store of their own. A session id
 * carries when it was issued, 128 random bits and an HMAC tag keyed with the SHA-256 of the API key
 * that opened it: any isolate checks an id against the request's key without a round trip, a leaked
 * id is useless with another key, and an id expires SESSION_TTL_MS after it was issued.
 *
 * What a session keeps besides (its log level, whether it was deleted) lives in the tenant's ledger,
 * on the shard of the session's reference (session-store.ts), so every isolate sees the same; nothing
 * of a session stays in an isolate.
 */

const encoder = new TextEncoder();
const RANDOM_BYTES = 16;
const TAG_BYTES = 16;
const REF_CHARS = 22;
const TAG_DOMAIN = "toolgate/mcp-session/v2";
const REF_DOMAIN = "toolgate/mcp-session-ref/v1";
const MAX_ID_LENGTH = 80;

/** A session lives this long from initialize; its client then gets 404 and initializes again. */
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

/** A checked session id: the reference its state and its calls are known by, and when it expires. */
export interface Session {
  /** A digest of the id (the id itself is never stored): the key of its ledger row and its call ids' prefix. */
  ref: string;
  expiresAt: number;
}

export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

async function tagOf(issued: string, random: string, keyHash: Uint8Array): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", keyHash, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${TAG_DOMAIN}.${issued}.${random}`));
  return new Uint8Array(mac).slice(0, TAG_BYTES);
}

async function refOf(id: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(`${REF_DOMAIN}.${id}`)));
  return toBase64Url(digest).slice(0, REF_CHARS);
}

/** A new session id for the key with this hash: `<issued, base 36 seconds>.<random>.<tag>`. */
export async function createSessionId(keyHash: Uint8Array, now = Date.now()): Promise<string> {
  const issued = Math.floor(now / 1000).toString(36);
  const random = toBase64Url(crypto.getRandomValues(new Uint8Array(RANDOM_BYTES)));
  return `${issued}.${random}.${toBase64Url(await tagOf(issued, random, keyHash))}`;
}

/** The session, when the id was made for this key and has not expired; compares tags in constant time. */
export async function checkSessionId(id: string, keyHash: Uint8Array, now = Date.now()): Promise<Session | undefined> {
  if (id.length > MAX_ID_LENGTH) return undefined;
  const [issued, random, tagPart, extra] = id.split(".");
  if (extra !== undefined || !issued || !random || !tagPart || !/^[0-9a-z]{1,10}$/.test(issued)) return undefined;
  const expiresAt = parseInt(issued, 36) * 1000 + SESSION_TTL_MS;
  const tag = fromBase64Url(tagPart);
  if (now >= expiresAt || fromBase64Url(random)?.length !== RANDOM_BYTES || tag?.length !== TAG_BYTES) return undefined;
  if (!crypto.subtle.timingSafeEqual(tag, await tagOf(issued, random, keyHash))) return undefined;
  return { ref: await refOf(id), expiresAt };
}
