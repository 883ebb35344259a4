import type { Context } from "hono";
import type { AppEnv, Caller } from "../env";
import { identityLibrary } from "../identity-library";
import { type IdentityNamespace, tenantIdentity } from "./address";
import { answered } from "./answer";

/**
 * A person's ambient credential — the console's session cookie, or a Cloudflare Access assertion —
 * counts only when the request says so (`Toolgate-Session: 1`) and comes from the page's own origin;
 * the library module checks both (lazy/ambient.ts). Without the header, cookies and assertions are
 * ignored and the module is never loaded.
 */

/** The console's marker: "use my session". */
export const SESSION_HEADER = "Toolgate-Session";

/** Whether the request asks for its ambient credential to count. */
export function wantsSession(c: Context<AppEnv>): boolean {
  return c.req.header(SESSION_HEADER) === "1";
}

/** The tenant's Identity object (only tenants that sign people in address it). */
export function identityOf(c: Context<AppEnv>) {
  return tenantIdentity(c.env as unknown as { IDENTITY: IdentityNamespace }, c.var.tenant.name);
}

/**
 * The person behind the request's ambient credential (Toolgate-Session: 1 sent, the tenant signs
 * people in). 403 cross_site from another site; 401 invalid_session / invalid_assertion when it is
 * missing, forged, expired or revoked; 403 no_role when no role includes them any more.
 */
export async function ambientCaller(c: Context<AppEnv>): Promise<Caller> {
  const library = await identityLibrary();
  return answered(await library.personFor({ request: c.req.raw, tenant: c.var.tenant, identity: identityOf(c) }));
}
