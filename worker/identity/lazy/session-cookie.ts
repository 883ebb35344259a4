import { base64url } from "jose";
import type { ClaimedUser } from "./user";
import type { IdentityAddressView } from "./types";

/**
 * The console's session: a stateless cookie `v1.<payload>.<HMAC-SHA-256>` (base64url), signed with the
 * tenant's secret from its Identity object (kept per isolate as a CryptoKey), HttpOnly, SameSite=Strict,
 * `__Host-` and Secure on https (on loopback http browsers refuse both, so the names drop the prefix).
 * Logout is real: revoked session ids come from the Identity object, re-read every few seconds.
 */

/** How long an isolate uses its copy of the revoked session ids (as KEY_SET_TTL_MS for keys). */
export const SESSION_REVOCATION_TTL_MS = 5_000;
/** Verified cookies kept per isolate (the oldest goes first). */
const MAX_VERIFIED = 1_024;
/** Longest cookie value read: the payload's bounds keep real ones under 2 KB. */
const MAX_COOKIE_CHARS = 4_096;

/** What a session cookie holds: who signed in (their groups cut to those a role names), and when. */
export interface SessionPayload {
  /** The session id: what logout revokes. */
  sid: string;
  tenant: string;
  src: "oidc";
  user: ClaimedUser;
  /** Seconds since the epoch. */
  iat: number;
  exp: number;
}

/**
 * The cookies' names for a request's scheme: `__Host-` (and Secure) only on https. `hint` is no
 * credential: a cookie the console's script may read ("1" while signed in), so it asks the API who is
 * signed in only when someone may be, instead of a 401 on every visit.
 */
export function cookieNames(url: URL): { session: string; login: string; hint: string; secure: boolean } {
  const secure = url.protocol === "https:";
  const prefix = secure ? "__Host-" : "";
  return { session: `${prefix}tg_session`, login: `${prefix}tg_login`, hint: `${prefix}tg_signed_in`, secure };
}

/** A Set-Cookie value: Path=/, HttpOnly (unless told), SameSite as given, Secure on https; Max-Age 0 clears it. */
export function setCookie(
  name: string,
  value: string,
  options: { secure: boolean; sameSite: "Strict" | "Lax"; maxAge: number; script?: boolean },
) {
  const parts = [`${name}=${value}`, "Path=/", ...(options.script ? [] : ["HttpOnly"])];
  parts.push(`SameSite=${options.sameSite}`, `Max-Age=${options.maxAge}`);
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}

/** The value of cookie `name` in a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

const toBase64Url = (bytes: Uint8Array) => base64url.encode(bytes);

/** The bytes of canonical unpadded base64url text, or undefined when it is not that. */
function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    const bytes = base64url.decode(text);
    return toBase64Url(bytes) === text ? bytes : undefined;
  } catch {
    return undefined;
  }
}

const keys = new Map<string, CryptoKey>();
const verified = new Map<string, SessionPayload>();
const revoked = new Map<string, { sids: Set<string>; at: number }>();
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The tenant's signing key, imported once per isolate (a settled value, never a pending promise). */
async function signingKey(identity: IdentityAddressView): Promise<CryptoKey> {
  const kept = keys.get(identity.tenant);
  if (kept) return kept;
  const secret = await identity.object().secret("session");
  if (secret === "invalid") throw new Error("the session secret's name is invalid");
  const key = await crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
  keys.set(identity.tenant, key);
  return key;
}

/** A new session's cookie value for `user`, valid `hours`; answers it with its payload. */
export async function signSession(
  identity: IdentityAddressView,
  user: ClaimedUser,
  hours: number,
  now = Date.now(),
): Promise<{ value: string; payload: SessionPayload }> {
  const iat = Math.floor(now / 1000);
  const payload: SessionPayload = {
    sid: toBase64Url(crypto.getRandomValues(new Uint8Array(18))),
    tenant: identity.tenant,
    src: "oidc",
    user,
    iat,
    exp: iat + hours * 3600,
  };
  const body = `v1.${toBase64Url(encoder.encode(JSON.stringify(payload)))}`;
  const mac = await crypto.subtle.sign("HMAC", await signingKey(identity), encoder.encode(body));
  return { value: `${body}.${toBase64Url(new Uint8Array(mac))}`, payload };
}

/** The revoked session ids of the tenant, from this isolate's copy while younger than the TTL. */
async function revokedSids(identity: IdentityAddressView, now: number): Promise<Set<string>> {
  const kept = revoked.get(identity.tenant);
  if (kept && now - kept.at < SESSION_REVOCATION_TTL_MS) return kept.sids;
  const sids = new Set(await identity.object().revokedSessions());
  revoked.set(identity.tenant, { sids, at: now });
  return sids;
}

/** The cookie's payload when its signature verifies (constant time), it is this tenant's and not expired. */
async function verifiedPayload(identity: IdentityAddressView, value: string, now: number) {
  const kept = verified.get(value);
  if (kept) return kept.exp * 1000 > now ? kept : undefined;
  const [version, body, mac, ...rest] = value.split(".");
  if (version !== "v1" || !body || !mac || rest.length > 0 || value.length > MAX_COOKIE_CHARS) return undefined;
  const signature = fromBase64Url(mac);
  const json = fromBase64Url(body);
  if (!signature || !json) return undefined;
  const ok = await crypto.subtle.verify("HMAC", await signingKey(identity), signature, encoder.encode(`v1.${body}`));
  if (!ok) return undefined;
  const payload = JSON.parse(decoder.decode(json)) as SessionPayload;
  if (payload.tenant !== identity.tenant || payload.exp * 1000 <= now) return undefined;
  if (verified.size >= MAX_VERIFIED) verified.delete(verified.keys().next().value!);
  verified.set(value, payload);
  return payload;
}

/** The session a cookie value carries, or undefined when it is forged, another tenant's, expired or revoked. */
export async function readSession(
  identity: IdentityAddressView,
  value: string,
  now = Date.now(),
): Promise<SessionPayload | undefined> {
  const payload = await verifiedPayload(identity, value, now);
  if (!payload || (await revokedSids(identity, now)).has(payload.sid)) return undefined;
  return payload;
}

/** Ends a session: revoked in the Identity object (every isolate within the TTL) and in this isolate at once. */
export async function revokeSession(identity: IdentityAddressView, payload: SessionPayload): Promise<void> {
  await identity.object().revokeSession(payload.sid, payload.exp * 1000);
  revoked.get(identity.tenant)?.sids.add(payload.sid);
}
