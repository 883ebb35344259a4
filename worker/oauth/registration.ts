import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { tenantUpstreams, type UpstreamNamespace } from "../upstreams/address";
import { clientAddress } from "./client-address";
import { siteOf } from "./context";
import { clientMetadataProblem, documentSizeProblem } from "./client-bounds";

/**
 * Client registrations per address (CF-Connecting-IP; an IPv6 /64): 20 at once, then one an hour.
 * A GCRA bucket in an Upstream object, as keys' rate limits are, so every isolate counts the same.
 */
export const REGISTRATION_RATE = { requests: 1, intervalMs: 3_600_000, burst: 20 } as const;

/**
 * An OAuth error answer (RFC 6749 §5.2, RFC 7591 §3.2.2) as the library words its own: JSON, never
 * cached, and readable by a browser-based client on another origin (the library answers the preflight).
 */
function oauthError(request: Request, status: number, error: string, description: string, more = {}) {
  const headers = { "Cache-Control": "no-store", Pragma: "no-cache", ...more };
  const response = Response.json({ error, error_description: description }, { status, headers });
  const origin = request.headers.get("Origin");
  if (origin) {
    response.headers.set("Access-Control-Allow-Origin", origin);
    response.headers.set("Access-Control-Expose-Headers", "Retry-After");
    response.headers.set("Vary", "Origin");
  }
  return response;
}

/** The body as a JSON object, or undefined (not JSON, or another value): the library refuses those itself. */
function metadataOf(body: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(body));
    const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
    return isObject ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** How long this address must wait before it may register a client; 0: it may now (and that is counted). */
async function registrationWait(c: Context<AppEnv>): Promise<number> {
  const address = clientAddress(c.req.header("cf-connecting-ip"));
  const upstreams = tenantUpstreams({ UPSTREAMS: c.env.UPSTREAMS as unknown as UpstreamNamespace }, c.var.tenant.name);
  const bucket = upstreams.for(`register:${address}`);
  // The count unknown (its object did not answer): no registration, as a key's rate limit does.
  const grant = await bucket.take(REGISTRATION_RATE, 0).catch(() => ({ ok: false as const, retryAfterMs: 1_000 }));
  return grant.ok ? 0 : grant.retryAfterMs;
}

/**
 * In front of the library's POST /register (after the body limit, which has read the body), which
 * stores whatever metadata passes its own checks: a registration beyond the bounds of client-bounds.ts
 * answers 400 `invalid_client_metadata` naming the field and its limit; one within them counts against
 * its address's rate, and past it answers 429 with Retry-After. Anything else goes on to the library.
 */
export const boundRegistration = createMiddleware<AppEnv>(async (c, next) => {
  const body = c.get("bodyBytes");
  // No body, or no OAuth on this host: the library, or the route's 404, answers.
  if (!body || !siteOf(c)) return next();
  const refuse = (problem: string) => oauthError(c.req.raw, 400, "invalid_client_metadata", problem);
  const tooLarge = documentSizeProblem(body.byteLength);
  if (tooLarge) return refuse(tooLarge);
  const metadata = metadataOf(body);
  if (!metadata) return next();
  const problem = clientMetadataProblem(metadata);
  if (problem) return refuse(problem);
  const waitMs = await registrationWait(c);
  if (waitMs > 0) {
    const seconds = Math.ceil(waitMs / 1000);
    const { burst } = REGISTRATION_RATE;
    const rate = `${burst} at once, then one an hour`;
    const description = `Too many client registrations from this address (${rate}); retry in ${seconds} s.`;
    return oauthError(c.req.raw, 429, "temporarily_unavailable", description, { "Retry-After": String(seconds) });
  }
  return next();
});
