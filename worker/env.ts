import type { Scope } from "./config";
import type { Tenant } from "./tenant";

/** The Worker's bindings: the generated Env plus the vars and secrets toolgate reads by name. */
export type Bindings = Env & {
  /** A tenant configuration as JSON: overrides the one bundled into a tenant's Worker (--var, .dev.vars, tests). */
  TOOLGATE_CONFIG?: string;
  /** "true" where the embedded demo tenant may be served (the top-level environment only). */
  TOOLGATE_DEMO?: string;
} & Record<string, unknown>;

/** The key a request authenticated with (never the key itself). */
export interface Caller {
  keyName: string;
  scopes: ReadonlySet<Scope>;
}

/** Hono's environment for every route and middleware. */
export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    requestId: string;
    tenant: Tenant;
    caller: Caller;
  };
}
