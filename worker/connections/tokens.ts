import type { CallSurface } from "../../src/contract/surface";
import type { CallUser } from "../../src/contract/users";
import { toolError } from "../../src/errors";
import type { ConnectionTokens } from "../../src/tool";
import { connectionsLibrary } from "../connections-library";
import { identityLibrary } from "../identity-library";
import { settingsFromEnv } from "../ledger/settings";
import type { Tenant } from "../tenant/tenant";
import { type ConnectionsNamespace, userConnections } from "./address";
import { connectionClient } from "./client";
import { connectionSecrets } from "./secret";

/** A call parked for a connection keeps its row this long past its wait's deadline (the ledger ends it first). */
const PARK_MARGIN_MS = 60_000;

/**
 * ctx.connectionToken for one tenant's calls made for `user` (absent: made for nobody, refused): the
 * connections library's userToken (lazy/tokens.ts), given the user's Connections object. `from.origin`
 * is where the connect URL a refusal names points; a call from an MCP client that answers URL-mode
 * elicitations asks the user to connect (an HTTP caller gets the refusal naming the URL). A detached
 * run (`from.parkCallId`, its call's id) whose caller answers later parks until the user connects.
 * `from.userToken`: the app's signed user token the call's user came from (an exchange's subject token).
 */
export function connectionTokens(
  env: unknown,
  tenant: Pick<Tenant, "name" | "config">,
  user: CallUser | undefined,
  from: { origin?: string; surface?: CallSurface; parkCallId?: string; userToken?: string },
): ConnectionTokens {
  const connections = tenant.config.connections ?? {};
  const { parkCallId } = from;
  return async ({ name, scopes, rejected }, asker) =>
    (await connectionsLibrary()).userToken(name, scopes, {
      ...(rejected === undefined ? {} : { rejected }),
      tenant: tenant.name,
      userId: user?.id,
      origin: from.origin,
      surface: from.surface,
      asker,
      ...(from.userToken ? { subject: { token: from.userToken, type: "jwt" as const } } : {}),
      userKey: async (id) => (await identityLibrary()).userKey(tenant.name, id),
      object: (key) => userConnections(env as { CONNECTIONS: ConnectionsNamespace }, tenant.name, key),
      client: () => connectionClient(connections, name, env),
      secrets: () => connectionSecrets(env as object),
      fail: (code, message, retryable) => toolError(code, message, { retryable }),
      park:
        parkCallId === undefined
          ? undefined
          : {
              callId: parkCallId,
              expiresAt: Date.now() + settingsFromEnv(env as Record<string, unknown>).inputTtlMs + PARK_MARGIN_MS,
            },
    });
}
