/**
 * The identity library module: jose and oauth4webapi, and toolgate's code that needs them, bundled
 * apart from the Worker (scripts/identity-module.mjs → worker/identity/library.generated.mjs) and
 * loaded on first use (worker/identity-library.ts): no isolate parses it at startup, and a tenant
 * without identity never does. It imports only those two packages and files of this folder, and
 * answers plain results (never toolgate's classes: a second copy would fail instanceof in the bundle).
 */
export {
  CLOCK_TOLERANCE_SECONDS,
  type JwtFailureReason,
  type JwtResult,
  MAX_TOKEN_BYTES,
  readUnverified,
  type VerifyJwtOptions,
  verifyJwt,
} from "./jwt";
export { type ClaimedUser, readClaim, USER_BOUNDS, type UserResult, userFromClaims } from "./claims";
export { DISCOVERY_LIMITS, type DiscoveryResult, discover } from "./discovery";
export { JWKS_LIMITS } from "./jwks";
/** The Identity object's rows (worker/identity/object.ts). */
export * as identityStore from "./store";
export {
  beginOidcLogin,
  finishOidcLogin,
  type OidcCallbackResult,
  type OidcClientConfig,
  type OidcFailureReason,
  type OidcLoginResult,
} from "./oidc-client";
