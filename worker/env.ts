import type { UserRef } from "../src/contract/users";
import type { ActAs } from "./identity/config";
import type { Scope } from "./tenant/config";
import type { Tenant } from "./tenant/tenant";
import type { RequestTracer } from "./telemetry-library";

/** The Worker's bindings: the generated Env plus the vars and secrets toolgate reads by name. */
export type Bindings = Env & {
  /** A tenant configuration as JSON: overrides the one bundled into a tenant's Worker (--var, .dev.vars, tests). */
  TOOLGATE_CONFIG?: string;
  /** "true" where the embedded demo tenant may be served (the top-level environment only). */
  TOOLGATE_DEMO?: string;
} & Record<string, unknown>;

/**
 * The user a request acts for (a person signed in, a person's OAuth grant, or a key acting for its app's
 * user): who they are, and what the tenant's roles made of them. Bounded (worker/identity/user.ts).
 */
export interface CallerUser extends UserRef {
  /** The user's groups that some role names (others are dropped: sessions and grants stay small). */
  groups: readonly string[];
  /** The names of the tenant's roles that matched. */
  roles: readonly string[];
  /** userKey(tenant, id): `u_` and 32 base64url characters; the OAuth library's user id, rate buckets, bindings. */
  key: string;
}

/** A rate limit of the caller's: calls per minute across isolates, counted in one bucket per `id`. */
export interface CallerRateLimit {
  /** `key:<runtime key id>`, `grant:<grant id>` or `user:<user key>`: the bucket, and whose limit a 429 names. */
  id: string;
  perMinute: number;
}

/** Who a request authenticated as (never the key or token itself): a key, an OAuth grant, or a person. */
export interface Caller {
  /**
   * Whose records its calls are: a key's name, `oauth:<client_id>#<grant_id>`, or a person's own console
   * credential, `session:<user key>` (OIDC sign-in) or `access:<user key>` (Cloudflare Access).
   */
  keyName: string;
  /** What it may do, already narrowed to the user's roles when it acts for one (worker/identity/caller.ts). */
  scopes: ReadonlySet<Scope>;
  /**
   * 32 bytes MCP sessions are bound to: a configured key's hash, a runtime key's id, a grant's id, a
   * person's session; a key acting for a user binds to both, so a session opened for one user is not another's.
   */
  binding: Uint8Array;
  /** Only these tools are listed and may be called; absent: every tool. */
  tools?: ReadonlySet<string>;
  /** Every limit its calls count against (the key's or grant's, the user's): each must allow a call. */
  rateLimits?: readonly CallerRateLimit[];
  /** An OAuth grant's caller: the client and grant, and the resource metadata 403s point to. */
  oauth?: { clientId: string; grantId: string; metadataUrl: string };
  /** A key that may act for its app's users: what it may send (worker/identity/act-as.ts). */
  actAs?: ActAs;
  /** A person's own credential (the console's cookie, or an Access assertion), not a key or grant. */
  person?: { via: "cookie" | "access"; sessionId?: string; expiresAt: number };
  /** The user the request acts for; absent: a key or tenant grant acting for no one (as before users). */
  user?: CallerUser;
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
    /** This request's tracer, for a tenant with `telemetry` (middleware/tracing.ts); undefined otherwise. */
    tracer: RequestTracer | undefined;
    /**
     * The request body as bodyLimit read it (undefined for a request without one): routes parse
     * it without reading a stream again.
     */
    bodyBytes: Uint8Array | undefined;
  };
}
