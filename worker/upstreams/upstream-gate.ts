import type { RateLimit } from "../../src/adapters/declarations";
import type { UpstreamGate } from "../../src/adapters/upstream";
import { sleep } from "../../src/retry";
import type { UpstreamsAddress } from "./address";

/**
 * The shared rate limit of one tenant's upstream, backed by its Upstream Durable Object. The object
 * hands out send times; the caller waits here, so the object is never held by a sleeping request.
 */
export function createUpstreamGate(upstreams: UpstreamsAddress, origin: string, limit: RateLimit): UpstreamGate {
  return {
    async take(maxWaitMs, signal) {
      const grant = await upstreams.for(origin).take(limit, maxWaitMs);
      if (!grant.ok) return grant;
      // A cancelled or timed-out call stops waiting at once, with the signal's reason.
      if (grant.waitMs > 0 && !(await sleep(grant.waitMs, signal))) throw signal.reason;
      return { ok: true };
    },
    backOff: (retryAfterMs) => upstreams.for(origin).backOff(limit, retryAfterMs),
  };
}
