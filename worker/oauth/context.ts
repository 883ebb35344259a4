import type { Context } from "hono";
import type { AppEnv } from "../env";
import { hostAllowed } from "../mcp/transport/guard";
import { siteAt, type OAuthSite } from "./site";

/**
 * The OAuth site this request reached (its route's resource: a curated endpoint's on /mcp/<name>):
 * its origin, when the Worker has its KV namespace and the host is one of this tenant's (the same rule
 * as /mcp's DNS-rebinding guard), else null.
 */
export function siteOf(c: Context<AppEnv>): OAuthSite | null {
  if (!c.env.OAUTH_KV) return null;
  const url = new URL(c.req.url);
  const tenant = c.get("tenant");
  if (!hostAllowed(url.host.toLowerCase(), tenant.config.hosts, tenant.name)) return null;
  // OAuth 2.1 wants https; plain http only on loopback (wrangler dev), as the library accepts it.
  if (url.protocol !== "https:" && !["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)) return null;
  const endpoints = Object.keys(tenant.config.endpoints ?? {});
  return siteAt(url.origin, tenant.name, endpoints, c.get("endpoint"));
}
