import type { RateLimit } from "../../src/adapters/declarations";
import type { Grant } from "./bucket";

/** An Upstream object's RPC methods, as callers use them. */
export interface UpstreamStub {
  take(limit: RateLimit, maxWaitMs: number): Promise<Grant>;
  backOff(limit: RateLimit, ms: number): Promise<void>;
}

/**
 * The Upstream Durable Object namespace as this module uses it (structural, so the tenant code that
 * builds gates also typechecks in Node for scripts: env.UPSTREAMS satisfies it).
 */
export interface UpstreamNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): UpstreamStub;
}

/** Where a tenant's upstream rate limits live: one Upstream object per upstream origin. */
export interface UpstreamsAddress {
  readonly tenant: string;
  /** A fresh stub of the origin's object (stubs are I/O objects: made per request, the namespace outlives them). */
  for(origin: string): UpstreamStub;
}

/** The tenant's upstreams in this environment (env.UPSTREAMS). */
export function tenantUpstreams(env: { UPSTREAMS: UpstreamNamespace }, tenant: string): UpstreamsAddress {
  const ns = env.UPSTREAMS;
  return { tenant, for: (origin) => ns.get(ns.idFromName(`${tenant}\n${origin}`)) };
}
