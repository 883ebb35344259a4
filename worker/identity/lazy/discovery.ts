import {
  type AuthorizationServer,
  allowInsecureRequests,
  customFetch,
  discoveryRequest,
  processDiscoveryResponse,
} from "oauth4webapi";
import { boundedFetch } from "./http";

/**
 * OpenID provider metadata (OpenID Connect Discovery 1.0), through oauth4webapi: fetched within
 * bounds, its `issuer` checked against the one configured, kept per isolate as a settled value (never
 * a pending fetch, which workerd would not settle for a later request).
 */

export const DISCOVERY_LIMITS = {
  /** Issuers kept per isolate (the oldest goes first). */
  issuers: 8,
  /** How long metadata is used before it is fetched again. */
  ttlMs: 60 * 60_000,
  /** Largest discovery document read. */
  bodyBytes: 64 * 1024,
  /** How long its fetch may take. */
  timeoutMs: 5_000,
} as const;

export type DiscoveryResult =
  | { ok: true; metadata: AuthorizationServer }
  | { ok: false; reason: "discovery_failed"; detail: string };

const kept = new Map<string, { metadata: AuthorizationServer; at: number }>();

/** Plain http is for local development against a provider on this machine only (as the configuration allows). */
function loopbackHttp(url: URL): boolean {
  if (url.protocol !== "http:") return false;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Whether an endpoint the metadata names may be used: https, or http on loopback for a loopback issuer. */
function usable(endpoint: unknown, issuer: URL): boolean {
  if (typeof endpoint !== "string") return false;
  try {
    const url = new URL(endpoint);
    return url.protocol === "https:" || (loopbackHttp(issuer) && loopbackHttp(url));
  } catch {
    return false;
  }
}

/**
 * The provider's metadata for `issuer` (the configuration's `identity.oidc.issuer`): as kept while
 * younger than an hour, else fetched from `<issuer>/.well-known/openid-configuration`. Refused
 * (discovery_failed, with the reason) when it cannot be fetched, is not JSON, names another issuer, or
 * has no usable jwks_uri, authorization_endpoint or token_endpoint.
 */
export async function discover(issuer: string, now = Date.now()): Promise<DiscoveryResult> {
  const cached = kept.get(issuer);
  if (cached && now - cached.at < DISCOVERY_LIMITS.ttlMs) return { ok: true, metadata: cached.metadata };
  const expected = new URL(issuer);
  const bounds = { maxBytes: DISCOVERY_LIMITS.bodyBytes, timeoutMs: DISCOVERY_LIMITS.timeoutMs };
  let metadata: AuthorizationServer;
  try {
    const response = await discoveryRequest(expected, {
      algorithm: "oidc",
      [customFetch]: (url, options) => boundedFetch(url, { method: options.method, headers: options.headers }, bounds),
      ...(loopbackHttp(expected) ? { [allowInsecureRequests]: true } : {}),
    });
    metadata = await processDiscoveryResponse(expected, response);
  } catch (error) {
    return { ok: false, reason: "discovery_failed", detail: error instanceof Error ? error.message : String(error) };
  }
  for (const field of ["jwks_uri", "authorization_endpoint", "token_endpoint"] as const)
    if (!usable(metadata[field], expected))
      return { ok: false, reason: "discovery_failed", detail: `its ${field} is missing or not https` };
  if (kept.size >= DISCOVERY_LIMITS.issuers && !kept.has(issuer)) kept.delete(kept.keys().next().value!);
  kept.set(issuer, { metadata, at: now });
  return { ok: true, metadata };
}
