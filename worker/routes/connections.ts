import type { Context } from "hono";
import type { AppEnv } from "../env";
import { Hono } from "../hono-lazy";
import { type ConnectPageDeps, connectionsLibrary } from "../connections-library";
import { type ConnectionsNamespace, userConnections } from "../connections/address";
import { connectionClient } from "../connections/client";
import { connectionSecrets } from "../connections/secret";
import { type IdentityNamespace, tenantIdentity } from "../identity/address";
import { resolveUser } from "../identity/caller";
import { isLoopbackHost } from "../identity/config";
import { cookieNames, readCookie, readSession } from "../identity/session-cookie";
import { hostAllowed } from "../mcp/transport/guard";

/**
 * A signed-in person connects their account at a connection's provider (connections.<name>): the pages
 * are the connections library's (lazy/routes.ts), loaded only by tenants with `connections`; this gives
 * them the tenant, the console session's person and the person's Connections object. Before CORS and
 * any key check, as the sign-in pages are.
 */

/** The signed-in person's user key (a top-level navigation: the Strict session cookie comes same-site only). */
async function sessionUserKey(c: Context<AppEnv>): Promise<string | undefined> {
  const site = c.req.header("Sec-Fetch-Site");
  if (site !== undefined && site !== "same-origin" && site !== "none") return undefined;
  const value = readCookie(c.req.header("Cookie"), cookieNames(new URL(c.req.url)).session);
  if (!value) return undefined;
  const identity = tenantIdentity(c.env as unknown as { IDENTITY: IdentityNamespace }, c.var.tenant.name);
  const session = await readSession(identity, value);
  return session ? (await resolveUser(c.var.tenant, session.user)).user.key : undefined;
}

function depsOf(c: Context<AppEnv>): ConnectPageDeps {
  const { tenant } = c.var;
  const connections = tenant.config.connections ?? {};
  const url = new URL(c.req.url);
  const ours = hostAllowed(url.host.toLowerCase(), tenant.config.hosts, tenant.name);
  return {
    tenant: tenant.name,
    origin: ours && (url.protocol === "https:" || isLoopbackHost(url.hostname)) ? url.origin : undefined,
    client: (name) => (Object.hasOwn(connections, name) ? connectionClient(connections, name, c.env) : undefined),
    title: (name) => connections[name]?.title ?? name,
    config: tenant.config,
    sessionUserKey: () => sessionUserKey(c),
    object: (key) => userConnections(c.env as unknown as { CONNECTIONS: ConnectionsNamespace }, tenant.name, key),
    secrets: () => connectionSecrets(c.env),
  };
}

export const connections = new Hono<AppEnv>()
  .get("/connections/callback", async (c) => (await connectionsLibrary()).callbackPage(c.req.raw, depsOf(c)))
  .get("/connections/:name/connect", async (c) =>
    (await connectionsLibrary()).connectPage(c.req.raw, c.req.param("name"), depsOf(c)),
  );
