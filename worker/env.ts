import type { Scope } from "./tenant/config";
import type { Tenant } from "./tenant/tenant";

/** The Worker's bindings: the generated Env plus the vars and secrets toolgate reads by name. */
export type Bindings = Env & {
  /** A tenant configuration as JSON: overrides the one bundled into a tenant's Worker (--var, .dev.vars, tests). */
  TOOLGATE_CONFIG?: string;
  /** "true" where the embedded demo tenant may be served (the top-level environment only). */
  TOOLGATE_DEMO?: string;
} & Record<string, unknown>;

/** Who a request authenticated as (never the key or token itself): a key, or an OAuth grant. */
export interface Caller {
  /** Whose records its calls are: a key's name, or `oauth:<client_id>#<grant_id>`. */
  keyName: string;
  scopes: ReadonlySet<Scope>;
  /** 32 bytes MCP sessions are bound to: a configured key's hash, a runtime key's id, a grant's id. */
  binding: Uint8Array;
  /** Only these tools are listed and may be called; absent: every tool. */
  tools?: ReadonlySet<string>;
  /** Calls per minute across isolates, counted under `id` (a runtime key's or a grant's). */
  rateLimit?: { id: string; perMinute: number };
  /** An OAuth grant's caller: the client and grant, and the resource metadata 403s point to. */
  oauth?: { clientId: string; grantId: string; metadataUrl: string };
}

/** Hono's environment for every route and middleware. */
export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    requestId: string;
    tenant: Tenant;
    caller: Caller;
    /** Set when a call of this request was refused by its caller's rate limit: when to retry. */
    rateLimitedMs: number | undefined;
    /**
     * The request body as bodyLimit read it (undefined for a request without one): routes parse
     * it without reading a stream again.
     */
    bodyBytes: Uint8Array | undefined;
  };
}
