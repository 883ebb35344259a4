import {
  type AuthorizationServer,
  AuthorizationResponseError,
  allowInsecureRequests,
  authorizationCodeGrantRequest,
  type Client,
  ClientSecretBasic,
  ClientSecretPost,
  calculatePKCECodeChallenge,
  customFetch,
  discoveryRequest,
  generateRandomCodeVerifier,
  generateRandomState,
  nopkce,
  OperationProcessingError,
  processAuthorizationCodeResponse,
  processDiscoveryResponse,
  processRefreshTokenResponse,
  processRevocationResponse,
  refreshTokenGrantRequest,
  revocationRequest,
  ResponseBodyError,
  type TokenEndpointResponse,
  validateAuthResponse,
} from "oauth4webapi";
import { isLoopbackHttp, ProviderUnreachable, providerFetch } from "./http";
import { slackTokens } from "./slack";

/**
 * toolgate as the OAuth client of a connection's provider, through oauth4webapi: the authorization
 * URL of a connect (code, PKCE S256, state), the callback's code exchange, and refreshes. Answers plain
 * results whose details never hold a token: the routes and the Connections object turn them into pages.
 */

/** A connection's configuration as this module needs it, with its client secret read from the Worker secret. */
export interface ConnectionClient {
  /** How messages and the console name it (default: the connection's name). */
  title?: string | undefined;
  issuer?: string | undefined;
  authorizationEndpoint?: string | undefined;
  tokenEndpoint?: string | undefined;
  revocationEndpoint?: string | undefined;
  clientId: string;
  clientSecret: string;
  clientAuth: "client_secret_basic" | "client_secret_post";
  scopeSeparator: " " | ",";
  tokenResponse: "oauth" | "slack";
  pkce: boolean;
  authorizeParams: Readonly<Record<string, string>>;
  /** "exchange": RFC 8693 token exchange of the user's identity token, no connect (exchange.ts). */
  kind?: "oauth" | "exchange" | undefined;
  audience?: string | undefined;
  resource?: string | undefined;
  requestedTokenType?: "access_token" | "jwt" | undefined;
  subjectTokenType?: "id_token" | "jwt" | "access_token" | undefined;
}

/**
 * Why a connect or refresh failed. provider_unreachable: the provider's fault (try later);
 * provider_error: its refusal in the browser (access_denied …); token_refused: its token endpoint said
 * no (a refresh: the user must connect again); state_mismatch, invalid_response: what came back is refused.
 */
export type ConnectFailureReason =
  | "provider_unreachable"
  | "provider_error"
  | "token_refused"
  | "state_mismatch"
  | "invalid_response";
export type ConnectFailure = { ok: false; reason: ConnectFailureReason; detail: string };

/** What a connection holds: the provider's tokens, their expiry (ms since the epoch) and the scopes granted. */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  expiresAt?: number;
  scopes: string[];
}

const fail = (reason: ConnectFailureReason, detail: string): ConnectFailure => ({ ok: false, reason, detail });

/** Metadata kept per isolate for an hour, by issuer (a settled value, never a pending fetch). */
const discovered = new Map<string, { as: AuthorizationServer; at: number }>();
const DISCOVERY_TTL_MS = 60 * 60_000;
const MAX_ISSUERS = 16;

/** The fetch of oauth4webapi's requests to the provider: bounded (http.ts), plain http on loopback only. */
export function requestOptions(url: string) {
  return {
    [customFetch]: (to: string, options: { method: string; headers: Record<string, string>; body?: unknown }) =>
      providerFetch(to, { method: options.method, headers: options.headers, body: options.body as BodyInit }),
    ...(isLoopbackHttp(new URL(url)) ? { [allowInsecureRequests]: true } : {}),
  };
}

/** The provider's metadata: its issuer's (RFC 8414, else OpenID discovery), the configured endpoints over it. */
export async function metadataOf(client: ConnectionClient, now = Date.now()): Promise<AuthorizationServer> {
  const own = {
    ...(client.authorizationEndpoint ? { authorization_endpoint: client.authorizationEndpoint } : {}),
    ...(client.tokenEndpoint ? { token_endpoint: client.tokenEndpoint } : {}),
    ...(client.revocationEndpoint ? { revocation_endpoint: client.revocationEndpoint } : {}),
  };
  // No issuer: an oauth connection names both endpoints, an exchange its token endpoint.
  if (!client.issuer) {
    const endpoint = (client.authorizationEndpoint ?? client.tokenEndpoint)!;
    return { issuer: new URL(endpoint).origin, ...own };
  }
  const kept = discovered.get(client.issuer);
  if (kept && now - kept.at < DISCOVERY_TTL_MS) return { ...kept.as, ...own };
  const issuer = new URL(client.issuer);
  let as: AuthorizationServer | undefined;
  let problem = "";
  for (const algorithm of ["oauth2", "oidc"] as const) {
    try {
      const response = await discoveryRequest(issuer, { algorithm, ...requestOptions(client.issuer) });
      as = await processDiscoveryResponse(issuer, response);
      break;
    } catch (error) {
      if (error instanceof ProviderUnreachable) throw error;
      problem = error instanceof Error ? error.message : String(error);
    }
  }
  if (!as) throw new ProviderUnreachable(`its metadata could not be read: ${problem}`);
  if (discovered.size >= MAX_ISSUERS && !discovered.has(client.issuer))
    discovered.delete(discovered.keys().next().value!);
  discovered.set(client.issuer, { as, at: now });
  return { ...as, ...own };
}

/** A failed request's result, its detail never holding a token. */
export function failureOf(error: unknown): ConnectFailure {
  if (error instanceof ProviderUnreachable) return fail("provider_unreachable", error.message);
  if (error instanceof AuthorizationResponseError)
    return fail(
      "provider_error",
      `the provider answered ${error.error}${error.error_description ? `: ${error.error_description}` : ""}`,
    );
  if (error instanceof ResponseBodyError)
    return fail("token_refused", `the provider's token endpoint answered ${error.error} (HTTP ${error.status})`);
  if (error instanceof OperationProcessingError && /"state"/.test(error.message))
    return fail("state_mismatch", "the answer's state is not this connect's");
  return fail("invalid_response", error instanceof Error ? error.message : String(error));
}

export const clientOf = (client: ConnectionClient): Client => ({ client_id: client.clientId });
export const authOf = (client: ConnectionClient) =>
  client.clientAuth === "client_secret_post"
    ? ClientSecretPost(client.clientSecret)
    : ClientSecretBasic(client.clientSecret);

/** The answer's tokens, with the scopes granted (the asked ones when the provider does not say). */
export function tokenSetOf(
  result: TokenEndpointResponse,
  asked: readonly string[],
  now: number,
  previous?: TokenSet,
): TokenSet {
  const scopes = typeof result.scope === "string" ? result.scope.split(/[\s,]+/).filter(Boolean) : [...asked];
  const refreshToken = result.refresh_token ?? previous?.refreshToken;
  return {
    accessToken: result.access_token,
    ...(refreshToken ? { refreshToken } : {}),
    ...(typeof result.expires_in === "number" ? { expiresAt: now + result.expires_in * 1000 } : {}),
    scopes,
  };
}

export type BeginResult = { ok: true; url: string; state: string; verifier: string } | ConnectFailure;

/** The authorization request's URL (code, S256, state), and the values its callback must match. */
export async function beginConnect(
  client: ConnectionClient,
  redirectUri: string,
  scopes: readonly string[],
): Promise<BeginResult> {
  let as: AuthorizationServer;
  try {
    as = await metadataOf(client);
  } catch (error) {
    return failureOf(error);
  }
  if (!as.authorization_endpoint || !as.token_endpoint)
    return fail("invalid_response", "the provider's metadata names no authorization or token endpoint");
  const verifier = generateRandomCodeVerifier();
  const state = generateRandomState();
  const url = new URL(as.authorization_endpoint);
  for (const [name, value] of Object.entries(client.authorizeParams)) url.searchParams.set(name, value);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", client.clientId);
  url.searchParams.set("redirect_uri", redirectUri);
  // Slack asks for a user token's scopes in user_scope (its `scope` is the bot's).
  const scopeParam = client.tokenResponse === "slack" ? "user_scope" : "scope";
  if (scopes.length > 0) url.searchParams.set(scopeParam, scopes.join(client.scopeSeparator));
  url.searchParams.set("state", state);
  if (client.pkce) {
    url.searchParams.set("code_challenge", await calculatePKCECodeChallenge(verifier));
    url.searchParams.set("code_challenge_method", "S256");
  }
  return { ok: true, url: url.href, state, verifier };
}

export type TokensResult = { ok: true; tokens: TokenSet } | ConnectFailure;

/** Finishes a connect at its callback: the answer's state (and iss, RFC 9207), the code exchanged with the verifier. */
export async function finishConnect(
  client: ConnectionClient,
  callbackUrl: string,
  redirectUri: string,
  expected: { state: string; verifier: string; scopes: readonly string[] },
  now = Date.now(),
): Promise<TokensResult> {
  try {
    const as = await metadataOf(client);
    const params = validateAuthResponse(as, clientOf(client), new URL(callbackUrl), expected.state);
    const response = await authorizationCodeGrantRequest(
      as,
      clientOf(client),
      authOf(client),
      params,
      redirectUri,
      client.pkce ? expected.verifier : nopkce,
      requestOptions(as.token_endpoint!),
    );
    if (client.tokenResponse === "slack") return slackTokens(response, expected.scopes, now);
    const result = await processAuthorizationCodeResponse(as, clientOf(client), response);
    return { ok: true, tokens: tokenSetOf(result, expected.scopes, now) };
  } catch (error) {
    return failureOf(error);
  }
}

/** New tokens for a refresh token: the old refresh token kept when the provider does not rotate it. */
export async function refreshConnection(
  client: ConnectionClient,
  tokens: TokenSet,
  now = Date.now(),
): Promise<TokensResult> {
  if (!tokens.refreshToken) return fail("token_refused", "the provider gave no refresh token");
  try {
    const as = await metadataOf(client);
    const response = await refreshTokenGrantRequest(
      as,
      clientOf(client),
      authOf(client),
      tokens.refreshToken,
      requestOptions(as.token_endpoint!),
    );
    if (client.tokenResponse === "slack") return slackTokens(response, tokens.scopes, now, tokens);
    const result = await processRefreshTokenResponse(as, clientOf(client), response);
    return { ok: true, tokens: tokenSetOf(result, tokens.scopes, now, tokens) };
  } catch (error) {
    return failureOf(error);
  }
}

/** What a disconnect's revocation at the provider came to (RFC 7009). */
export type Revocation = { revoked: "revoked" | "not_offered" } | { revoked: "failed"; detail: string };

/**
 * Revokes the tokens at the provider's revocation endpoint (RFC 7009), the refresh token first (most
 * providers drop its access tokens with it), then the access token. "not_offered": the provider names
 * no revocation endpoint. A failure's detail never holds a token.
 */
export async function revokeConnection(client: ConnectionClient, tokens: TokenSet): Promise<Revocation> {
  try {
    const as = await metadataOf(client);
    if (!as.revocation_endpoint) return { revoked: "not_offered" };
    const each = [
      ...(tokens.refreshToken ? [{ token: tokens.refreshToken, hint: "refresh_token" }] : []),
      { token: tokens.accessToken, hint: "access_token" },
    ];
    for (const { token, hint } of each) {
      const response = await revocationRequest(as, clientOf(client), authOf(client), token, {
        additionalParameters: { token_type_hint: hint },
        ...requestOptions(as.revocation_endpoint),
      });
      await processRevocationResponse(response);
    }
    return { revoked: "revoked" };
  } catch (error) {
    const failure = failureOf(error);
    return { revoked: "failed", detail: `${failure.reason}: ${failure.detail}` };
  }
}
