import type { JSONWebKeySet } from "jose";

/**
 * Key sets (JWKS) of the issuers toolgate trusts, fetched and kept per isolate. Values only, never a
 * pending fetch: workerd never settles a promise made in a request that has ended, so a fetch shared
 * by requests could leave the later ones waiting forever (jose's createRemoteJWKSet shares one).
 * Two requests that miss at once each fetch; the later answer replaces the earlier.
 */

export const JWKS_LIMITS = {
  /** Key sets kept per isolate (the oldest goes first). */
  uris: 16,
  /** Largest key set read. */
  bodyBytes: 64 * 1024,
  /** How long a fetch may take. */
  timeoutMs: 5_000,
  /** How long a key set is used before it is fetched again. */
  ttlMs: 10 * 60_000,
  /** While its issuer cannot be reached, a set is used up to this old (then tokens get keys_unavailable). */
  staleMs: 60 * 60_000,
  /** A token naming a key the set lacks fetches the set again only if the last fetch is older than this. */
  cooldownMs: 30_000,
} as const;

/** A key set as kept: its JSON, when it was fetched, and the keys verifications imported from it. */
export interface KeySet {
  jwks: JSONWebKeySet;
  fetchedAt: number;
  /** Imported keys by `alg \n kid`: settled values, shared by later verifications. */
  keys: Map<string, CryptoKey>;
}

/** Why a key set could not be had: its detail names the URI's answer, never a secret. */
export class KeysUnavailable extends Error {}

interface Entry {
  set?: KeySet;
  /** The last fetch tried, succeeded or not: the cooldown counts from it. */
  triedAt: number;
}

const entries = new Map<string, Entry>();

/** The body's text, or KeysUnavailable past `max` bytes (read in chunks: a huge answer is never held whole). */
async function boundedText(response: Response, max: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > max) throw new KeysUnavailable(`its key set is over ${max} bytes`);
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new KeysUnavailable(`its key set is over ${max} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) bytes.set(chunk, (at += chunk.byteLength) - chunk.byteLength);
  return new TextDecoder().decode(bytes);
}

function isKeySet(value: unknown): value is JSONWebKeySet {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as { keys?: unknown }).keys) &&
    (value as { keys: unknown[] }).keys.every((key) => typeof key === "object" && key !== null && !Array.isArray(key))
  );
}

/** Fetches the key set at `uri` (no redirects: a redirect could downgrade to plain http). Throws KeysUnavailable. */
async function fetchKeySet(uri: string): Promise<JSONWebKeySet> {
  let response: Response;
  try {
    response = await fetch(uri, {
      redirect: "manual",
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(JWKS_LIMITS.timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    throw new KeysUnavailable(timedOut ? `no answer within ${JWKS_LIMITS.timeoutMs} ms` : "it could not be reached");
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new KeysUnavailable(`it answered HTTP ${response.status}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(await boundedText(response, JWKS_LIMITS.bodyBytes));
  } catch (error) {
    if (error instanceof KeysUnavailable) throw error;
    throw new KeysUnavailable("its answer is not JSON");
  }
  if (!isKeySet(value)) throw new KeysUnavailable('its answer is not a key set ({ "keys": [...] })');
  return value;
}

/** Fetches and keeps the set (the oldest of JWKS_LIMITS.uris goes). Throws KeysUnavailable. */
async function refresh(uri: string, now: number): Promise<KeySet> {
  const entry = entries.get(uri);
  if (entry) entry.triedAt = now;
  else {
    if (entries.size >= JWKS_LIMITS.uris) entries.delete(entries.keys().next().value!);
    entries.set(uri, { triedAt: now });
  }
  const set: KeySet = { jwks: await fetchKeySet(uri), fetchedAt: now, keys: new Map() };
  const current = entries.get(uri);
  if (current) current.set = set;
  return set;
}

/**
 * The set at `uri`: as kept while younger than JWKS_LIMITS.ttlMs, else fetched. While the issuer cannot
 * be reached, the set kept serves up to JWKS_LIMITS.staleMs (fetched again once per cooldown), so a
 * short outage of the issuer is no outage here. Throws KeysUnavailable.
 */
export async function keySet(uri: string, now: number): Promise<KeySet> {
  const entry = entries.get(uri);
  const set = entry?.set;
  if (set && now - set.fetchedAt < JWKS_LIMITS.ttlMs) return set;
  const usable = set && now - set.fetchedAt < JWKS_LIMITS.staleMs ? set : undefined;
  if (usable && entry && now - entry.triedAt < JWKS_LIMITS.cooldownMs) return usable;
  try {
    return await refresh(uri, now);
  } catch (error) {
    if (usable) return usable;
    throw error;
  }
}

/**
 * The set fetched again because a token named a key it lacks (the issuer rotated its keys), or null
 * when the last fetch is younger than JWKS_LIMITS.cooldownMs: tokens with made-up key ids never make
 * toolgate fetch more than once per cooldown. Throws KeysUnavailable.
 */
export async function rotatedKeySet(uri: string, now: number): Promise<KeySet | null> {
  const entry = entries.get(uri);
  if (entry && now - entry.triedAt < JWKS_LIMITS.cooldownMs) return null;
  return refresh(uri, now);
}
