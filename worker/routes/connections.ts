import type { Context } from "hono";
import type { AppEnv } from "../env";
import { Hono } from "../hono-lazy";
import { identityOf } from "../identity/ambient";
import { identityLibrary } from "../identity-library";
import { type ConnectPageDeps, connectionsLibrary } from "../connections-library";
import { type ConnectionsNamespace, userConnections } from "../connections/address";
import { connectionClient } from "../connections/client";
import { connectionSecrets } from "../connections/secret";
import { isLoopbackHost } from "../identity/loopback";
import { hostAllowed } from "../mcp/transport/guard";

/**
 * A signed-in person connects their account at a connection's provider (connections.<name>): the pages
 * are the connections library's (lazy/routes.ts), loaded only by tenants with `connections`; this gives
 * them the tenant, the console session's person and the person's Connections object. Before CORS and
 * any key check, as the sign-in pages are.
 */

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
    sessionUserKey: async () =>
      (await identityLibrary()).sessionUserKey({ request: c.req.raw, tenant, identity: identityOf(c) }),
    object: (key) => userConnections(c.env as unknown as { CONNECTIONS: ConnectionsNamespace }, tenant.name, key),
    secrets: () => connectionSecrets(c.env),
  };
}

export const connections = new Hono<AppEnv>()
  .get("/connections/callback", async (c) => (await connectionsLibrary()).callbackPage(c.req.raw, depsOf(c)))
  .get("/connections/:name/connect", async (c) =>
    (await connectionsLibrary()).connectPage(c.req.raw, c.req.param("name"), depsOf(c)),
  );
