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
  generateRandomCodeVerifier,
  generateRandomNonce,
  generateRandomState,
  getValidatedIdTokenClaims,
  JWT_CLAIM_COMPARISON,
  JWT_TIMESTAMP_CHECK,
  OperationProcessingError,
  processAuthorizationCodeResponse,
  processUserInfoResponse,
  ResponseBodyError,
  userInfoRequest,
  validateAuthResponse,
} from "oauth4webapi";
import { type ClaimedUser, type ClaimNames, readClaim, userFromClaims } from "./claims";
import { discover } from "./discovery";
import { boundedFetch, UnreachableIssuer } from "./http";
import { verifyJwt } from "./jwt";

/**
 * The console's OpenID Connect sign-in (authorization code with PKCE, state and nonce), through
 * oauth4webapi: the authorization URL for /auth/login, and the callback's code exchange, ID-token
 * checks (claims by oauth4webapi, signature by verifyJwt against the provider's key set and the
 * tenant's algorithm allow-list), userinfo for mapped claims the ID token lacks, and the required claims.
 * Answers plain results (this module is apart from the bundle): worker/routes/auth.ts turns them into pages.
 */

/** Answers from the provider's token and userinfo endpoints, at most. */
const BOUNDS = { maxBytes: 64 * 1024, timeoutMs: 5_000 } as const;

/** The tenant's `identity.oidc`, with its client secret read from the Worker secret. */
export interface OidcClientConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  clientAuth: "client_secret_basic" | "client_secret_post";
  scopes: readonly string[];
  algorithms: readonly string[];
  requiredClaims: Readonly<Record<string, string | number | boolean>>;
  claims: ClaimNames;
}

/**
 * Why a sign-in failed. provider_unreachable is the provider's fault (503); provider_error is the
 * provider's own refusal (error=access_denied…, 403); the others are refusals of what came back (400).
 */
export type OidcFailureReason =
  | "provider_unreachable"
  | "provider_error"
  | "state_mismatch"
  | "issuer_mismatch"
  | "token_refused"
  | "nonce_mismatch"
  | "wrong_issuer"
  | "wrong_audience"
  | "expired"
  | "not_yet_valid"
  | "algorithm_not_allowed"
  | "bad_signature"
  | "claim_mismatch"
  | "invalid_response"
  | "no_user";

export type OidcFailure = { ok: false; reason: OidcFailureReason; detail: string };

/** A login to begin: where to send the browser, and what its callback must match (stored single use). */
export type OidcLoginResult = { ok: true; url: string; state: string; nonce: string; verifier: string } | OidcFailure;

/** A finished sign-in: the user, and the ID token with its expiry (ms since the epoch), verified. */
export type OidcCallbackResult =
  | { ok: true; user: ClaimedUser; idToken: { token: string; expiresAt: number } }
  | OidcFailure;

const fail = (reason: OidcFailureReason, detail: string): OidcFailure => ({ ok: false, reason, detail });

function isLoopbackHttp(url: URL): boolean {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return (
    url.protocol === "http:" &&
    (host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host))
  );
}

/** oauth4webapi's request options: bounded fetches, plain http only for a loopback issuer. */
function requestOptions(issuer: string) {
  return {
    [customFetch]: (url: string, options: { method: string; headers: Record<string, string>; body?: unknown }) =>
      boundedFetch(url, { method: options.method, headers: options.headers, body: options.body as BodyInit }, BOUNDS),
    ...(isLoopbackHttp(new URL(issuer)) ? { [allowInsecureRequests]: true } : {}),
  };
}

async function metadataOf(issuer: string): Promise<{ ok: true; as: AuthorizationServer } | OidcFailure> {
  const found = await discover(issuer);
  return found.ok ? { ok: true, as: found.metadata } : fail("provider_unreachable", found.detail);
}

/** The authorization request's URL (code, S256, state, nonce), and the values its callback must match. */
export async function beginOidcLogin(config: OidcClientConfig, redirectUri: string): Promise<OidcLoginResult> {
  const metadata = await metadataOf(config.issuer);
  if (!metadata.ok) return metadata;
  const { as } = metadata;
  const verifier = generateRandomCodeVerifier();
  const state = generateRandomState();
  const nonce = generateRandomNonce();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", config.clientId);
  url.searchParams.set("redirect_uri", redirectUri);
  url.searchParams.set("scope", config.scopes.join(" "));
  url.searchParams.set("state", state);
  url.searchParams.set("nonce", nonce);
  url.searchParams.set("code_challenge", await calculatePKCECodeChallenge(verifier));
  url.searchParams.set("code_challenge_method", "S256");
  return { ok: true, url: url.href, state, nonce, verifier };
}

/** oauth4webapi's and the network's errors → a reason, with a detail that never holds a token. */
function failureOf(error: unknown): OidcFailure {
  if (error instanceof UnreachableIssuer) return fail("provider_unreachable", error.message);
  if (error instanceof AuthorizationResponseError)
    return fail(
      "provider_error",
      `the provider answered ${error.error}${error.error_description ? `: ${error.error_description}` : ""}`,
    );
  if (error instanceof ResponseBodyError)
    return fail("token_refused", `the provider's token endpoint answered ${error.error} (HTTP ${error.status})`);
  if (error instanceof OperationProcessingError) {
    const claim = (error.cause as { claim?: string } | undefined)?.claim;
    if (error.code === JWT_CLAIM_COMPARISON) {
      if (claim === "nonce") return fail("nonce_mismatch", "the ID token's nonce is not this sign-in's");
      if (claim === "iss") return fail("wrong_issuer", "the ID token's issuer is not the configured one");
      if (claim === "aud" || claim === "azp") return fail("wrong_audience", "the ID token is not for this client");
      return fail("claim_mismatch", `the ID token's "${claim}" claim does not match`);
    }
    if (error.code === JWT_TIMESTAMP_CHECK)
      return claim === "exp"
        ? fail("expired", "the ID token has expired")
        : fail("not_yet_valid", `the ID token's "${claim}" claim is out of range`);
    if (/"alg"/.test(error.message)) return fail("algorithm_not_allowed", "the ID token's algorithm is not allowed");
    if (/"state"/.test(error.message)) return fail("state_mismatch", "the answer's state is not this sign-in's");
    if (/"iss"/.test(error.message)) return fail("issuer_mismatch", "the answer's iss is not the configured issuer");
    return fail("invalid_response", error.message);
  }
  if (error instanceof Error) return fail("invalid_response", error.message);
  return fail("invalid_response", String(error));
}

const MAPPED = ["name", "email", "groups"] as const;

/**
 * Finishes a sign-in at its callback: the answer's state and iss (RFC 9207), the code exchanged with
 * the verifier, the ID token's claims (iss, aud, azp, exp, iat, nonce) and signature (the allow-list),
 * userinfo when a mapped claim is missing (its sub must be the ID token's), the required claims, and
 * the user the claims name.
 */
export async function finishOidcLogin(
  config: OidcClientConfig,
  callbackUrl: string,
  redirectUri: string,
  expected: { state: string; nonce: string; verifier: string },
): Promise<OidcCallbackResult> {
  const metadata = await metadataOf(config.issuer);
  if (!metadata.ok) return metadata;
  const { as } = metadata;
  const client: Client = { client_id: config.clientId };
  const auth =
    config.clientAuth === "client_secret_post"
      ? ClientSecretPost(config.clientSecret)
      : ClientSecretBasic(config.clientSecret);
  const options = requestOptions(config.issuer);
  let claims: Record<string, unknown>;
  let idToken: { token: string; expiresAt: number };
  try {
    const params = validateAuthResponse(as, client, new URL(callbackUrl), expected.state);
    const response = await authorizationCodeGrantRequest(
      as,
      client,
      auth,
      params,
      redirectUri,
      expected.verifier,
      options,
    );
    const result = await processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: expected.nonce,
      requireIdToken: true,
    });
    const idClaims = getValidatedIdTokenClaims(result)!;
    const verified = await verifyJwt(result.id_token!, {
      jwksUri: as.jwks_uri!,
      issuer: as.issuer,
      audience: config.clientId,
      algorithms: config.algorithms,
    });
    if (!verified.ok)
      return verified.reason === "keys_unavailable"
        ? fail("provider_unreachable", verified.detail)
        : fail(verified.reason === "algorithm_not_allowed" ? verified.reason : "bad_signature", verified.detail);
    claims = { ...idClaims };
    idToken = { token: result.id_token!, expiresAt: idClaims.exp * 1000 };
    const missing = MAPPED.some((field) => readClaim(claims, config.claims[field]) === undefined);
    if (missing && as.userinfo_endpoint) {
      const answer = await userInfoRequest(as, client, result.access_token, options);
      const info = await processUserInfoResponse(as, client, idClaims.sub, answer);
      // The ID token's claims win where both have one: they are signed.
      claims = { ...info, ...idClaims };
    }
  } catch (error) {
    return failureOf(error);
  }
  for (const [name, value] of Object.entries(config.requiredClaims))
    if (readClaim(claims, name) !== value)
      return fail(
        "claim_mismatch",
        `the claim "${name}" must be ${JSON.stringify(value)} (identity.oidc.requiredClaims)`,
      );
  const read = userFromClaims(claims, config.claims, "oidc");
  return read.ok ? { ok: true, user: read.user, idToken } : fail("no_user", read.reason);
}
