import type { Context } from "hono";
import type { AppEnv } from "../env";
import { hostAllowed } from "../mcp/guard";
import { oauthSite, type OAuthSite } from "./site";

/**
 * The OAuth site this request reached: its origin, when the Worker has its KV namespace and the host
 * is one of this tenant's (the same rule as /mcp's DNS-rebinding guard), else null.
 */
export function siteOf(c: Context<AppEnv>): OAuthSite | null {
  if (!c.env.OAUTH_KV) return null;
  const url = new URL(c.req.url);
  const { tenant } = c.var;
  if (!hostAllowed(url.host.toLowerCase(), tenant.config.hosts, tenant.name)) return null;
  return oauthSite(url.origin, tenant.name);
}
