import { REFRESH_BEFORE_MS, type TokenRequest } from "./access";
import { exchangeToken, type SubjectToken } from "./exchange";
import type { ConnectionClient } from "./oauth-client";
import { keptSubject, loadTokens, noteUse, type Owner, saveTokens } from "./store";
import type { AccessTokenResult } from "./tokens";

/** Exchanges under way in one Connections object, by connection: every caller meanwhile waits for that one. */
export type Exchanges = Map<string, Promise<AccessTokenResult>>;

const NO_SUBJECT = "this call has no identity token of the user to exchange (nor a live one from a console sign-in)";

async function exchange(
  sql: SqlStorage,
  request: { owner: Owner; connection: string; scopes: readonly string[]; client: ConnectionClient },
  subject: SubjectToken,
  secret: string,
): Promise<AccessTokenResult> {
  const { owner, connection, scopes, client } = request;
  const result = await exchangeToken(client, subject, scopes);
  if (!result.ok) {
    // The provider down: the call fails and a later one tries again. Any other failure: it refused the token.
    if (result.reason === "provider_unreachable") return { ok: false, reason: result.reason, detail: result.detail };
    return { ok: false, reason: "subject_refused", detail: result.detail };
  }
  const missing = scopes.filter((scope) => !result.tokens.scopes.includes(scope));
  if (missing.length > 0)
    return { ok: false, reason: "short_scopes", detail: `the exchange did not grant the scopes ${missing.join(", ")}` };
  await saveTokens(sql, secret, owner, connection, result.tokens, Date.now());
  noteUse(sql, connection, Date.now());
  return { ok: true, accessToken: result.tokens.accessToken, expiresAt: result.tokens.expiresAt ?? null };
}

/**
 * The user's token of exchange connection `connection` holding `scopes`: the one an earlier exchange
 * got while it lives (more than REFRESH_BEFORE_MS left), else `subject` exchanged for a new one, sealed
 * and kept. One exchange at a time per object and connection (concurrent callers share `exchanges`'
 * entry). The subject: the call's `subject`, else the ID token of the user's last console sign-in while
 * it lives (store.ts keepSubject); without either, no_subject. `secrets`: current first.
 * `request.rejected`: the token the upstream just refused (401), never answered again.
 */
export async function exchangedToken(
  sql: SqlStorage,
  exchanges: Exchanges,
  request: TokenRequest,
  secrets: readonly string[],
  subject: SubjectToken | undefined,
): Promise<AccessTokenResult> {
  const { owner, connection, scopes } = request;
  const loaded = await loadTokens(sql, secrets, owner, connection);
  const now = Date.now();
  if (typeof loaded === "object") {
    const { expiresAt } = loaded.tokens;
    // A token the upstream refused (request.rejected) is exchanged again, as an expired one is.
    const live =
      loaded.tokens.accessToken !== request.rejected &&
      (expiresAt === undefined || expiresAt - now > REFRESH_BEFORE_MS);
    if (live && scopes.every((scope) => loaded.tokens.scopes.includes(scope))) {
      noteUse(sql, connection, now);
      return { ok: true, accessToken: loaded.tokens.accessToken, expiresAt: expiresAt ?? null };
    }
  }
  // The call's own (an app's user token), else the ID token of the user's last console sign-in.
  const kept = subject || exchanges.has(connection) ? undefined : await keptSubject(sql, secrets, owner, now);
  let running = exchanges.get(connection);
  if (running) return running;
  const presented = subject ?? (kept ? { token: kept, type: "id_token" as const } : undefined);
  if (!presented) return { ok: false, reason: "no_subject", detail: NO_SUBJECT };
  running = exchange(sql, request, presented, secrets[0]!).finally(() => exchanges.delete(connection));
  exchanges.set(connection, running);
  return running;
}
