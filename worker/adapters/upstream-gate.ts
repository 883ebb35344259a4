import type { RateLimit } from "../../src/adapters/declarations";
import type { UpstreamGate } from "../../src/adapters/upstream";
import { sleep } from "../../src/retry";
import type { Grant } from "../durable/upstream-bucket";

/**
 * The Upstream Durable Object namespace as this module uses it (structural, so the tenant code that
 * builds gates also typechecks in Node for scripts: env.UPSTREAMS satisfies it).
 */
export interface UpstreamNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): { take(limit: RateLimit, maxWaitMs: number): Promise<Grant>; backOff(limit: RateLimit, ms: number): Promise<void> };
}

/**
 * The shared rate limit of one tenant's upstream, backed by its Upstream Durable Object. The object
 * hands out send times; the caller waits here, so the object is never held by a sleeping request.
 * A stub is made per request (stubs are I/O objects; the namespace outlives requests).
 */
export function createUpstreamGate(namespace: UpstreamNamespace, tenant: string, upstream: string, limit: RateLimit): UpstreamGate {
  const id = namespace.idFromName(`${tenant}\n${upstream}`);
  return {
    async take(maxWaitMs, signal) {
      const grant = await namespace.get(id).take(limit, maxWaitMs);
      if (!grant.ok) return grant;
      // A cancelled or timed-out call stops waiting at once, with the signal's reason.
      if (grant.waitMs > 0 && !(await sleep(grant.waitMs, signal))) throw signal.reason;
      return { ok: true };
    },
    backOff: (retryAfterMs) => namespace.get(id).backOff(limit, retryAfterMs),
  };
}
