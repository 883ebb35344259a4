import { runOp, TENANT_INDEX } from "./ops";
import { callbackPage, type ConnectPageDeps, connectPage } from "./routes";
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
  /** The API's caller (after the key check): its scopes, and the user it acts for (none: a key acting for nobody). */
  caller?: { scopes: ReadonlySet<string>; user?: { key: string } | undefined } | undefined;
}

const jsonAnswer = (status: number, body: unknown) =>
  Response.json(body, { status, headers: { "cache-control": "no-store" } });
const refusal = (status: number, code: string, message: string) => jsonAnswer(status, { error: { code, message } });

const NO_USER =
  "Connections are a person's own: sign in to the console, or use a key acting for a user (Toolgate-User-Token).";

/** The caller's user's key, and whether it may see counts (admin). */
const callerOf = (deps: ConnectionsApiDeps) => ({
  userKey: deps.caller?.user?.key,
  admin: deps.caller?.scopes.has("admin") === true,
});

/** GET /v1/connections. */
async function connectionsList(given: ConnectionsApiDeps): Promise<Response> {
  const deps = { ...given, ...callerOf(given) };
  if (deps.userKey === undefined && !deps.admin) return refusal(403, "no_user", NO_USER);
  if (!deps.config.connections) return refusal(404, "not_found", "This tenant declares no connections.");
  const held = deps.userKey === undefined ? [] : await runOp(deps.object(deps.userKey), "listConnections");
  const byName = new Map(held.map((info) => [info.connection, info]));
  const names = Object.keys(deps.config.connections ?? {});
  const connections = names.map((name) => {
    const info = byName.get(name);
    return {
      name,
      title: deps.client(name)?.title ?? name,
      connectUrl: `${deps.origin ?? ""}/connections/${name}/connect`,
      connected: info !== undefined,
      ...(info
        ? { scopes: info.scopes, connectedAt: info.connectedAt, usedAt: info.usedAt, needsUser: info.needsUser }
        : {}),
    };
  });
  const counts = deps.admin ? await runOp(deps.object(TENANT_INDEX), "memberCounts") : undefined;
  return jsonAnswer(200, {
    ...(deps.userKey === undefined ? {} : { connections }),
    ...(counts ? { counts: Object.fromEntries(names.map((name) => [name, counts[name] ?? 0])) } : {}),
  });
}

/** DELETE /v1/connections/:name. */
async function disconnectAnswer(name: string, given: ConnectionsApiDeps): Promise<Response> {
  const deps = { ...given, ...callerOf(given) };
  const client = deps.client(name);
  if (!client) return refusal(404, "not_found", `This tenant has no connection "${name}".`);
  if (deps.userKey === undefined) return refusal(403, "no_user", NO_USER);
  const owner = { tenant: deps.tenant, userKey: deps.userKey };
  const result = await runOp(deps.object(deps.userKey), "disconnect", owner, name, client, deps.secrets());
  forgetKept(deps.tenant, deps.userKey, name);
  if (!result.removed) return refusal(404, "not_connected", `You are not connected to ${name}.`);
  await runOp(deps.object(TENANT_INDEX), "noteMember", deps.userKey, name, false);
  const detail = "detail" in result ? { detail: result.detail } : {};
  return jsonAnswer(200, { disconnected: name, revoked: result.revoked, ...detail });
}

/** Which page or API request the Worker hands over (worker/routes/connections.ts). */
export type AnswerKind = "connect" | "callback" | "list" | "disconnect";

/**
 * The Worker's one entry to the connect pages and the API. The connection's name is the path's:
 * /connections/<name>/connect, /v1/connections/<name>.
 */
export function answer(kind: AnswerKind, request: Request, deps: ConnectionsApiDeps): Promise<Response> {
  const part = new URL(request.url).pathname.split("/")[kind === "connect" ? 2 : 3] ?? "";
  let name = "";
  try {
    name = decodeURIComponent(part);
  } catch {
    // Not a name any connection has: answered as an unknown one.
  }
  if (kind === "callback") return callbackPage(request, deps);
  if (kind === "list") return connectionsList(deps);
  return kind === "connect" ? connectPage(request, name, deps) : disconnectAnswer(name, deps);
}
