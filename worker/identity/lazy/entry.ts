/**
 * The identity library module: jose and oauth4webapi, and toolgate's code that needs them, bundled
 * apart from the Worker (scripts/identity-module.mjs → worker/identity/library.generated.mjs) and
 * loaded on first use (worker/identity-library.ts): no isolate parses it at startup, and a tenant
 * without identity never does. It imports only those two packages and files of this folder, and
 * answers plain results (never toolgate's classes: a second copy would fail instanceof in the bundle).
 * Everything only a tenant with identity runs is here: sign-in, sessions, the CSRF rule, callers acting
 * for users; the bundle keeps thin adapters (worker/identity/*.ts, worker/routes/auth.ts).
 */
import { type ActAsRequest, actAs } from "./act-as";
import { type AmbientRequest, ambientCaller } from "./ambient";
import { grantOfUser, resolveUser } from "./caller";
import { type GrantsApi, revokeOwn } from "./connectors";
import type { ClaimedUser } from "./claims";
import { type Answer, answer } from "./refused";
import { callback, login, logout, type SignInRequest } from "./sign-in";
import type { Caller, TenantView } from "./types";

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
export type { Answer, Refusal } from "./refused";
export type { ActAsRequest } from "./act-as";
export type { AmbientRequest } from "./ambient";
export type { SignInRequest } from "./sign-in";
export { accessUserKey, sessionUserKey } from "./session-user";
export { userKey } from "./user";

/** The caller acting for the user the request's Toolgate-User(-Token) names (act-as.ts), or its refusal. */
export function actFor(request: ActAsRequest, caller: Caller): Promise<Answer<Caller>> {
  return answer(() => actAs(request, caller));
}

/** The person behind a request's ambient credential (ambient.ts), or its refusal. */
export function personFor(request: AmbientRequest): Promise<Answer<Caller>> {
  return answer(() => ambientCaller(request));
}

/** A person's OAuth grant, its rights narrowed to their roles now (caller.ts), or 403 no_role. */
export function grantFor(tenant: TenantView, grant: Caller, user: ClaimedUser) {
  return answer(async () => grantOfUser(grant, await resolveUser(tenant, user)));
}

/** An admin's page of every grant, the tenant's then each person's (connectors.ts). */
export { adminGrants, type GrantPage, type GrantsApi } from "./connectors";

/** Revokes a person's own grant, or 404 not_found (connectors.ts). */
export function revokeOwnGrant<G extends { id: string }>(api: GrantsApi<G>, key: string, id: string) {
  return answer(() => revokeOwn(api, key, id));
}

/** The answer of a sign-in route (sign-in.ts) at a tenant with identity.oidc. */
export function signInAnswer(
  request: SignInRequest,
  route: "login" | "callback" | "logout",
): Promise<Answer<Response>> {
  const oidc = request.tenant.config.identity!.oidc!;
  return answer(() =>
    route === "login" ? login(request, oidc) : route === "callback" ? callback(request, oidc) : logout(request),
  );
}
