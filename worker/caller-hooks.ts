import type { Context } from "hono";
import { toolError } from "../src/errors";
import type { Hooks } from "../src/hooks";
import type { AppEnv, Caller, CallerRateLimit } from "./env";
import { allowedBy } from "./search/mode";
import { tenantUpstreams, type UpstreamNamespace } from "./upstreams/address";

const MINUTE_MS = 60_000;

/** Whose limit a refusal names, from the bucket's id (`key:`, `grant:`, `user:`). */
const WHOSE: Record<string, string> = { key: "key", grant: "grant", user: "user" };

/**
 * The caller's own rules as pipeline hooks: its tool allow-list (other tools are `denied`) and its
 * rate limits (the key's or grant's, and its user's), each shared by every isolate through the same
 * GCRA bucket as upstream rate limits (one Upstream object per key, grant or user; a whole minute's
 * calls may come at once). A call over any limit is `busy` with retryAfterMs and never runs; the
 * request notes it, so a lone call answers 429.
 */
export function callerHooks(c: Context<AppEnv>, caller: Caller): Hooks | undefined {
  const { tools, rateLimits = [] } = caller;
  if (!tools && rateLimits.length === 0) return undefined;
  const hooks: Hooks = {};
  // A tenant's search tool is every caller's: it answers only the tools of the caller's list.
  if (tools) hooks.isAllowed = (call) => allowedBy(c.get("tenant"), tools, call.tool.name);
  if (rateLimits.length > 0)
    hooks.beforeCall = rateLimitHook(c.env, c.get("tenant").name, rateLimits, (retryAfterMs) =>
      c.set("rateLimitedMs", Math.max(c.get("rateLimitedMs") ?? 0, retryAfterMs)),
    );
  return hooks;
}

/**
 * The caller's rate limits as a beforeCall hook, outside a request too (a held code run's calls in its
 * Runner): a call over any limit is `busy` with retryAfterMs and never runs; `limited` hears of it.
 */
export function rateLimitHook(
  env: { UPSTREAMS?: unknown },
  tenant: string,
  rateLimits: readonly CallerRateLimit[],
  limited?: (retryAfterMs: number) => void,
): NonNullable<Hooks["beforeCall"]> {
  const upstreams = tenantUpstreams({ UPSTREAMS: env.UPSTREAMS as unknown as UpstreamNamespace }, tenant);
  const take = async (rateLimit: CallerRateLimit) => {
    const limit = { requests: rateLimit.perMinute, intervalMs: MINUTE_MS, burst: rateLimit.perMinute };
    const grant = await upstreams
      .for(rateLimit.id)
      .take(limit, 0)
      .catch(() => ({ ok: false as const, retryAfterMs: 1_000 }));
    return { rateLimit, retryAfterMs: grant.ok ? 0 : Math.max(1, grant.retryAfterMs) };
  };
  return async () => {
    const taken = await Promise.all(rateLimits.map(take));
    // The limit that frees last is the one to wait for.
    const { rateLimit, retryAfterMs } = taken.reduce((a, b) => (b.retryAfterMs > a.retryAfterMs ? b : a));
    if (retryAfterMs === 0) return undefined;
    limited?.(retryAfterMs);
    const whose = WHOSE[rateLimit.id.slice(0, rateLimit.id.indexOf(":"))] ?? "caller";
    const retry = `retry in ${Math.ceil(retryAfterMs / 1000)} s`;
    const message = `Rate limit of ${rateLimit.perMinute} calls per minute reached for this ${whose}; ${retry}.`;
    throw toolError("busy", message, { retryAfterMs });
  };
}
