import type { Context } from "hono";
import { toolError } from "../src/errors";
import type { Hooks } from "../src/hooks";
import type { AppEnv, Caller } from "./env";
import { tenantUpstreams, type UpstreamNamespace } from "./upstreams/address";

const MINUTE_MS = 60_000;

/**
 * The caller's own rules as pipeline hooks: its tool allow-list (other tools are `denied`) and its
 * rate limit, shared by every isolate through the same GCRA bucket as upstream rate limits (one
 * Upstream object per key or grant; a whole minute's calls may come at once). A call over the limit
 * is `busy` with retryAfterMs and never runs; the request notes it, so a lone call answers 429.
 */
export function callerHooks(c: Context<AppEnv>, caller: Caller): Hooks | undefined {
  const { tools, rateLimit } = caller;
  if (!tools && !rateLimit) return undefined;
  const hooks: Hooks = {};
  if (tools) hooks.isAllowed = (call) => tools.has(call.tool.name);
  if (rateLimit) {
    const bucket = tenantUpstreams(
      { UPSTREAMS: c.env.UPSTREAMS as unknown as UpstreamNamespace },
      c.get("tenant").name,
    ).for(rateLimit.id);
    const limit = { requests: rateLimit.perMinute, intervalMs: MINUTE_MS, burst: rateLimit.perMinute };
    hooks.beforeCall = async () => {
      const grant = await bucket.take(limit, 0).catch(() => ({ ok: false as const, retryAfterMs: 1_000 }));
      if (grant.ok) return undefined;
      c.set("rateLimitedMs", Math.max(c.get("rateLimitedMs") ?? 0, grant.retryAfterMs));
      const seconds = Math.ceil(grant.retryAfterMs / 1000);
      throw toolError(
        "busy",
        `Rate limit of ${rateLimit.perMinute} calls per minute reached for this caller; retry in ${seconds} s.`,
        {
          retryAfterMs: grant.retryAfterMs,
        },
      );
    };
  }
  return hooks;
}
