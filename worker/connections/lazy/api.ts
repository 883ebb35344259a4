import type { DisconnectResult } from "./disconnect";
import type { ConnectionClient } from "./oauth-client";
import type { ConnectionInfo, Owner } from "./store";
import type { ConnectPageDeps } from "./routes";
import { forgetKept } from "./tokens";

/**
 * The connections API (worker/routes/connections.ts hands it over, behind the key check):
 *   GET    /v1/connections        the caller's user's connections, one entry per provider the tenant
 *                                 declares (connected or not: where to connect); admins also get how
 *                                 many people hold each. Never a token.
 *   DELETE /v1/connections/:name  the caller's user disconnects: tokens removed, then revoked at the
 *                                 provider where it offers revocation (RFC 7009).
 */

/** What the API needs of the Worker: the connect pages' (routes.ts), and who the caller is. */
export interface ConnectionsApiDeps extends ConnectPageDeps {
  /** The caller's user's key; undefined: a key acting for nobody. */
  userKey: string | undefined;
  /** The caller may see counts (an admin). */
  admin: boolean;
  object(userKey: string): ReturnType<ConnectPageDeps["object"]> & {
    listConnections(): Promise<ConnectionInfo[]>;
    disconnect(
      owner: Owner,
      connection: string,
      client: ConnectionClient,
      secrets: readonly string[],
    ): Promise<DisconnectResult>;
  };
  index(): ReturnType<ConnectPageDeps["index"]> & { memberCounts(): Promise<Record<string, number>> };
}

const answer = (status: number, body: unknown) =>
  Response.json(body, { status, headers: { "cache-control": "no-store" } });
const refusal = (status: number, code: string, message: string) => answer(status, { error: { code, message } });

const NO_USER =
  "Connections are a person's own: sign in to the console, or use a key acting for a user (Toolgate-User-Token).";

/** GET /v1/connections. */
export async function connectionsList(deps: ConnectionsApiDeps): Promise<Response> {
  if (deps.userKey === undefined && !deps.admin) return refusal(403, "no_user", NO_USER);
  const held = deps.userKey === undefined ? [] : await deps.object(deps.userKey).listConnections();
  const byName = new Map(held.map((info) => [info.connection, info]));
  const names = Object.keys(deps.config.connections ?? {});
  const connections = names.map((name) => {
    const info = byName.get(name);
    return {
      name,
      title: deps.title(name),
      connectUrl: `${deps.origin ?? ""}/connections/${name}/connect`,
      connected: info !== undefined,
      ...(info
        ? { scopes: info.scopes, connectedAt: info.connectedAt, usedAt: info.usedAt, needsUser: info.needsUser }
        : {}),
    };
  });
  const counts = deps.admin ? await deps.index().memberCounts() : undefined;
  return answer(200, {
    ...(deps.userKey === undefined ? {} : { connections }),
    ...(counts ? { counts: Object.fromEntries(names.map((name) => [name, counts[name] ?? 0])) } : {}),
  });
}

/** DELETE /v1/connections/:name. */
export async function disconnectAnswer(name: string, deps: ConnectionsApiDeps): Promise<Response> {
  const client = deps.client(name);
  if (!client) return refusal(404, "not_found", `This tenant has no connection "${name}".`);
  if (deps.userKey === undefined) return refusal(403, "no_user", NO_USER);
  const owner = { tenant: deps.tenant, userKey: deps.userKey };
  const result = await deps.object(deps.userKey).disconnect(owner, name, client, deps.secrets());
  forgetKept(deps.tenant, deps.userKey, name);
  if (!result.removed) return refusal(404, "not_connected", `You are not connected to ${name}.`);
  await deps.index().noteMember(deps.userKey, name, false);
  const detail = "detail" in result ? { detail: result.detail } : {};
  return answer(200, { disconnected: name, revoked: result.revoked, ...detail });
}
