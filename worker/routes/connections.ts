import type { Context } from "hono";
import type { AppEnv } from "../env";
import { Hono } from "../hono-lazy";
import { identityOf } from "../identity/ambient";
import { identityLibrary } from "../identity-library";
import { type AnswerKind, type ConnectionsApiDeps, connectionsLibrary } from "../connections-library";
import { type ConnectionsNamespace, userConnections } from "../connections/address";
import { connectionClient } from "../connections/client";
import { tenantLedger } from "../ledger/address";
import { tenantRunners } from "../runner/address";
import { answerCall } from "../runner/answer";
import { connectionSecrets } from "../connections/secret";
import { isLoopbackHost } from "../identity/loopback";
import { hostAllowed } from "../mcp/transport/guard";

/**
 * A signed-in person connects their account at a connection's provider (connections.<name>): the pages
 * are the connections library's (lazy/routes.ts), loaded only by tenants with `connections`; this gives
 * them the tenant, the console session's person and the person's Connections object. Before CORS and
 * any key check, as the sign-in pages are.
 */

/**
 * What the library's pages and API need of the request: the tenant, its connections, the person's
 * objects; for the API (after the key check) also the caller's user and rights.
 */
function depsOf(c: Context<AppEnv>): ConnectionsApiDeps {
  const { tenant, caller } = c.var;
  const connections = tenant.config.connections ?? {};
  const url = new URL(c.req.url);
  const ambient = { request: c.req.raw, tenant, identity: identityOf(c) };
  const ours = hostAllowed(url.host.toLowerCase(), tenant.config.hosts, tenant.name);
  return {
    tenant: tenant.name,
    origin: ours && (url.protocol === "https:" || isLoopbackHost(url.hostname)) ? url.origin : undefined,
    client: (name) => (Object.hasOwn(connections, name) ? connectionClient(connections, name, c.env) : undefined),
    config: tenant.config,
    sessionUserKey: async () => (await identityLibrary()).sessionUserKey(ambient),
    ...(tenant.config.identity?.access
      ? { callbackUserKey: async () => (await identityLibrary()).accessUserKey(ambient) }
      : {}),
    object: (key) => userConnections(c.env as unknown as { CONNECTIONS: ConnectionsNamespace }, tenant.name, key),
    secrets: () => connectionSecrets(c.env),
    // A parked call's id comes from its user's own object, where only their calls' runs put it.
    answerCall: (id, responses) =>
      answerCall(tenantLedger(c.env, tenant.name), tenantRunners(c.env, tenant.name), id, null, responses),
    // Set after the key check only: the pages, before it, have none.
    caller,
  };
}

/** A route answered by the connections library. */
const answer =
  (kind: AnswerKind) =>
  async (c: Context<AppEnv>): Promise<Response> =>
    (await connectionsLibrary()).answer(kind, c.req.raw, depsOf(c));

export const connections = new Hono<AppEnv>()
  .get("/connections/callback", answer("callback"))
  .get("/connections/:name/connect", answer("connect"));

/** GET /v1/connections, DELETE /v1/connections/:name (the library's api.ts): app.ts routes them after the key check. */
export const listConnections = answer("list");
export const disconnectConnection = answer("disconnect");
