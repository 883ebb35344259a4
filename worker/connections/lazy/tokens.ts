import type { SubjectToken } from "./exchange";
import type { ConnectionClient } from "./oauth-client";
import { type OpRunner, runOp } from "./ops";
import { connectKey } from "./parked";
import type { Owner } from "./store";

/** Decrypted tokens an isolate keeps, at most this long (and never past a minute before their expiry). */
export const TOKEN_KEPT_MS = 5 * 60_000;
const MAX_KEPT = 1_024;
const kept = new Map<string, { token: string; until: number; scopes: readonly string[] }>();

/** What the Connections object answers (worker/connections/object.ts). */
export type AccessTokenResult =
  | { ok: true; accessToken: string; expiresAt: number | null }
  | { ok: false; reason: AccessRefusal | "provider_unreachable"; detail: string };

/**
 * Why the user has no token: not_connected, needs_user (connect again), short_scopes; an exchange
 * connection's no_subject (the call has no identity token to exchange), subject_refused (the provider
 * refused it).
 */
export type AccessRefusal = "not_connected" | "needs_user" | "short_scopes" | "no_subject" | "subject_refused";

/** What a call's token needs of the Worker (this module imports nothing of it). */
export interface TokenDeps {
  tenant: string;
  /** The call's user; undefined: made for nobody. */
  userId: string | undefined;
  /** A token the upstream refused (401) for this call: a new one is wanted, never this one again. */
  rejected?: string;
  /** The request's origin, for the connect URL (undefined: a path alone). */
  origin: string | undefined;
  /** Where the call came in (worker/surface.ts): only an MCP client is asked to connect. */
  surface?: string | undefined;
  userKey(id: string): Promise<string>;
  object(userKey: string): OpRunner & {
    accessToken(
      owner: Owner,
      connection: string,
      scopes: readonly string[],
      client: ConnectionClient,
      secrets: readonly string[],
      subject?: SubjectToken,
      rejected?: string,
    ): Promise<AccessTokenResult>;
  };
  /** The call's identity token of the user, for an exchange connection (undefined: none at hand). */
  subject?: SubjectToken | undefined;
  client(): ConnectionClient;
  secrets(): string[];
  /** src/errors.ts toolError: how the call ends. */
  fail(code: "denied" | "upstream_error", message: string, retryable: boolean): Error;
  /**
   * The call's ctx: an MCP client answering URL-mode elicitations is asked to connect. Another caller,
   * or none: the call is refused, naming the connect URL.
   */
  asker?: ConnectAsker | undefined;
  /**
   * The call runs detached (its Runner), and its caller answers later: asked to connect, it parks
   * (awaiting_input) until `expiresAt`, and the connect's callback resumes it (parked.ts).
   */
  park?: { callId: string; expiresAt: number } | undefined;
}

/** What of the call's ctx asking to connect uses (src/tool.ts ConnectionAsker). */
export interface ConnectAsker {
  canAsk(method: "elicitation/create", mode: "url"): boolean;
  ask(key: string, request: { method: "elicitation/create"; params: ConnectElicitation }): Promise<unknown>;
}

/** A URL-mode elicitation's params (MCP 2025-11-25 elicitation/create, mode "url"). */
export interface ConnectElicitation {
  [name: string]: string;
  mode: "url";
  message: string;
  url: string;
  elicitationId: string;
}

/**
 * The call's user's access token of `connection` holding `scopes`: from this isolate while kept, else
 * from the user's Connections object (one round trip). No user, no connection or short scopes: the
 * call ends denied, naming the connect URL; the tool makes no upstream request.
 */
export async function userToken(connection: string, scopes: readonly string[], given: TokenDeps): Promise<string> {
  // How messages name the connection: its title (the client's, read first: its secret must be set anyway).
  const deps = { ...given, title: given.client().title ?? connection };
  if (deps.userId === undefined)
    throw deps.fail(
      "denied",
      `This tool acts as the user through ${deps.title}, and this call is made for no user: ` +
        "call it signed in, or with a key acting for a user (Toolgate-User-Token).",
      false,
    );
  const key = await deps.userKey(deps.userId);
  const cacheKey = `${deps.tenant}\n${key}\n${connection}`;
  const now = Date.now();
  const hit = kept.get(cacheKey);
  const { rejected } = deps;
  if (hit && hit.until > now && hit.token !== rejected && scopes.every((scope) => hit.scopes.includes(scope)))
    return hit.token;
  const owner = { tenant: deps.tenant, userKey: key };
  const client = deps.client();
  const fetchToken = () =>
    deps.object(key).accessToken(owner, connection, scopes, client, deps.secrets(), deps.subject, rejected);
  const url = `${deps.origin ?? ""}/connections/${connection}/connect`;
  let got = await fetchToken();
  // A client that can open the connect page is asked to (the origin known: the URL must be whole); a
  // detached run parks, its question open until the user connects. An exchange connection has no connect page.
  const asker = (deps.surface === "mcp" || deps.park) && client.kind !== "exchange" ? deps.asker : undefined;
  if (!got.ok && got.reason !== "provider_unreachable" && deps.origin && asker?.canAsk("elicitation/create", "url")) {
    kept.delete(cacheKey);
    const { park } = deps;
    const parked =
      !park || (await runOp(deps.object(key), "parkCall", park.callId, connection, [...scopes], park.expiresAt));
    if (parked) got = await askToConnect(asker, connection, url, got.detail, deps, fetchToken);
  }
  if (!got.ok) {
    kept.delete(cacheKey);
    if (client.kind === "exchange") throw exchangeFailure(got, deps);
    if (got.reason === "provider_unreachable")
      throw deps.fail("upstream_error", `${deps.title} could not refresh the user's connection: ${got.detail}`, true);
    throw deps.fail("denied", `Connect ${deps.title} first (${got.detail}): open ${url}, then call again.`, false);
  }
  const until = Math.min(now + TOKEN_KEPT_MS, (got.expiresAt ?? Number.POSITIVE_INFINITY) - 60_000);
  if (until > now) {
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
    kept.set(cacheKey, { token: got.accessToken, until, scopes });
  }
  return got.accessToken;
}

/** How a call through an exchange connection ends when it got no token: saying what the user or app must do. */
function exchangeFailure(got: Extract<AccessTokenResult, { ok: false }>, deps: TokenDeps & { title: string }) {
  const what = `${deps.title} exchanges the user's identity token for a token of its own`;
  if (got.reason === "provider_unreachable")
    return deps.fail(
      "upstream_error",
      `${deps.title} could not exchange the user's identity token: ${got.detail}`,
      true,
    );
  if (got.reason === "no_subject")
    return deps.fail(
      "denied",
      `${what}, and ${got.detail}: call with a key acting for the user with their signed user token ` +
        "(Toolgate-User-Token), or sign in to the console again.",
      false,
    );
  if (got.reason === "subject_refused")
    return deps.fail("denied", `${what}, and refused it (${got.detail}): sign in again, then call again.`, false);
  return deps.fail("denied", `${what}: ${got.detail}.`, false);
}

/**
 * Asks the caller to connect (a URL-mode elicitation of the connect page, asked under `connect:<name>`,
 * so the call's next run reads the answer), then tries once more. The answer "accept" only says the user
 * opened the page: a call made before they finished is refused as before, and is made again after.
 */
async function askToConnect(
  asker: ConnectAsker,
  connection: string,
  url: string,
  detail: string,
  deps: TokenDeps & { title: string },
  fetchToken: () => Promise<AccessTokenResult>,
): Promise<AccessTokenResult> {
  const message = `This tool acts as you through ${deps.title} (${detail}). Connect your account to continue.`;
  const params: ConnectElicitation = { mode: "url", message, url, elicitationId: crypto.randomUUID() };
  const answer = await asker.ask(connectKey(connection), { method: "elicitation/create", params });
  const action = typeof answer === "object" && answer !== null ? (answer as { action?: unknown }).action : undefined;
  if (action !== "accept")
    throw deps.fail(
      "denied",
      `The user did not connect ${deps.title} (they answered ${JSON.stringify(action ?? null)}): ` +
        `open ${url} to connect, then call again.`,
      false,
    );
  return fetchToken();
}

/** Drops what this isolate keeps of a user's token (a disconnect; other isolates keep theirs at most TOKEN_KEPT_MS). */
export function forgetKept(tenant: string, userKey: string, connection: string): void {
  kept.delete(`${tenant}\n${userKey}\n${connection}`);
}
