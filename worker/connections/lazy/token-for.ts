import { accessToken, type Refreshes, type TokenRequest } from "./access";
import type { SubjectToken } from "./exchange";
import { exchangedToken } from "./exchange-access";
import type { AccessTokenResult } from "./tokens";

/**
 * What a Connections object answers a call needing the user's token of `connection`: a connected
 * one's (access.ts, refreshed when it expires), or an exchange connection's (exchange-access.ts, the
 * call's `subject` exchanged when none lives). `inFlight`: the object's refreshes and exchanges under
 * way, by connection.
 */
export function tokenFor(
  sql: SqlStorage,
  inFlight: Refreshes,
  request: TokenRequest,
  secrets: readonly string[],
  subject?: SubjectToken,
): Promise<AccessTokenResult> {
  if (request.client.kind === "exchange") return exchangedToken(sql, inFlight, request, secrets, subject);
  return accessToken(sql, inFlight, request, secrets);
}
