import type { Context } from "hono";
import type { AppEnv } from "../env";
import { Hono } from "../hono-lazy";
import { identityOf } from "../identity/ambient";
import { identityLibrary } from "../identity-library";
import { type ConnectionsApiDeps, connectionsLibrary } from "../connections-library";
import { type ConnectionsNamespace, tenantConnectionsIndex, userConnections } from "../connections/address";
import { connectionClient } from "../connections/client";
import { connectionSecrets } from "../connections/secret";
import { isLoopbackHost } from "../identity/config";
import { hasScope } from "../middleware/auth";
import { hostAllowed } from "../mcp/transport/guard";
import { ApiError } from "../errors";

/**
 * A signed-in person connects their account at a connection's provider (connections.<name>): the pages
 * are the connections library's (lazy/routes.ts), loaded only by tenants with `connections`; this gives
 * them the tenant, the console session's person and the person's Connections object. Before CORS and
 * any key check, as the sign-in pages are.
 */

/** The pages' deps, with the objects' whole stubs: the API's build on them. */
function depsOf(c: Context<AppEnv>): Omit<ConnectionsApiDeps, "userKey" | "admin"> {
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
    object: (key) => userConnections(namespaceOf(c), tenant.name, key),
    secrets: () => connectionSecrets(c.env),
    index: () => tenantConnectionsIndex(namespaceOf(c), tenant.name),
  };
}

const namespaceOf = (c: Context<AppEnv>) => c.env as unknown as { CONNECTIONS: ConnectionsNamespace };

/** The API's view of the request: the pages' deps, and the caller's user and rights (after the key check). */
function apiDepsOf(c: Context<AppEnv>): ConnectionsApiDeps {
  const { tenant, caller } = c.var;
  if (!tenant.config.connections) throw new ApiError(404, "not_found", "This tenant declares no connections.");
  return { ...depsOf(c), userKey: caller.user?.key, admin: hasScope(caller, "admin") };
}

export const connections = new Hono<AppEnv>()
  .get("/connections/callback", async (c) => (await connectionsLibrary()).callbackPage(c.req.raw, depsOf(c)))
  .get("/connections/:name/connect", async (c) =>
    (await connectionsLibrary()).connectPage(c.req.raw, c.req.param("name"), depsOf(c)),
  );

/** A person's connections and disconnecting (the connections library's api.ts), behind the key check. */
export const connectionsApi = new Hono<AppEnv>()
  .get("/", async (c) => (await connectionsLibrary()).connectionsList(apiDepsOf(c)))
  .delete("/:name", async (c) => (await connectionsLibrary()).disconnectAnswer(c.req.param("name"), apiDepsOf(c)));
