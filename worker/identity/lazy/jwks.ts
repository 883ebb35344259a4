import type { JSONWebKeySet } from "jose";
import { boundedFetch, UnreachableIssuer } from "./http";

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

interface Entry {
  set?: KeySet;
  /** The last fetch tried, succeeded or not: the cooldown counts from it. */
  triedAt: number;
}

const entries = new Map<string, Entry>();

function isKeySet(value: unknown): value is JSONWebKeySet {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as { keys?: unknown }).keys) &&
    (value as { keys: unknown[] }).keys.every((key) => typeof key === "object" && key !== null && !Array.isArray(key))
  );
}

/** Fetches the key set at `uri`. Throws UnreachableIssuer. */
async function fetchKeySet(uri: string): Promise<JSONWebKeySet> {
  const bounds = { maxBytes: JWKS_LIMITS.bodyBytes, timeoutMs: JWKS_LIMITS.timeoutMs };
  const response = await boundedFetch(uri, { headers: { accept: "application/json" } }, bounds);
  if (response.status !== 200) throw new UnreachableIssuer(`it answered HTTP ${response.status}`);
  let value: unknown;
  try {
    value = await response.json();
  } catch {
    throw new UnreachableIssuer("its answer is not JSON");
  }
  if (!isKeySet(value)) throw new UnreachableIssuer('its answer is not a key set ({ "keys": [...] })');
  return value;
}

/** Fetches and keeps the set (the oldest of JWKS_LIMITS.uris goes). Throws UnreachableIssuer. */
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
 * short outage of the issuer is no outage here. Throws UnreachableIssuer.
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
 * toolgate fetch more than once per cooldown. Throws UnreachableIssuer.
 */
export async function rotatedKeySet(uri: string, now: number): Promise<KeySet | null> {
  const entry = entries.get(uri);
  if (entry && now - entry.triedAt < JWKS_LIMITS.cooldownMs) return null;
  return refresh(uri, now);
}
