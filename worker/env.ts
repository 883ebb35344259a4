import type { Caller } from "./identity/lazy/types";
import type { Tenant } from "./tenant/tenant";
import type { RequestTracer } from "./telemetry-library";

/** Who a request authenticated as: declared beside the code that makes people's callers (loaded on first use). */
export type { Caller, CallerRateLimit, CallerUser } from "./identity/lazy/types";

/** The Worker's bindings: the generated Env plus the vars and secrets toolgate reads by name. */
export type Bindings = Env & {
  /** A tenant configuration as JSON: overrides the one bundled into a tenant's Worker (--var, .dev.vars, tests). */
  TOOLGATE_CONFIG?: string;
  /** "true" where the embedded demo tenant may be served (the top-level environment only). */
  TOOLGATE_DEMO?: string;
} & Record<string, unknown>;

/** Hono's environment for every route and middleware. */
export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    requestId: string;
    tenant: Tenant;
    caller: Caller;
    /** Set when a call of this request was refused by its caller's rate limit: when to retry. */
    rateLimitedMs: number | undefined;
    /** The curated MCP endpoint this request reached (/mcp/<name>); undefined elsewhere. */
    endpoint: string | undefined;
    /** This request's tracer, for a tenant with `telemetry` (middleware/tracing.ts); undefined otherwise. */
    tracer: RequestTracer | undefined;
    /**
     * The request body as bodyLimit read it (undefined for a request without one): routes parse
     * it without reading a stream again.
     */
    bodyBytes: Uint8Array | undefined;
  };
}
