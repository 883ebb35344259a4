import { keyActingFor, type ResolvedUser, resolveUser } from "./caller";
import { claimsFor, userFromClaims } from "./claims";
import { readUnverified, verifyJwt } from "./jwt";
import { jwtRefusal, refuse } from "./refused";
import { keepTokenUser, keptTokenUser } from "./token-cache";
import { type ClaimedUser, userFromHeader } from "./user";
import type { Caller, TenantView } from "./types";

/**
 * Chat-app backends speak for their users: after the credential check, a request may name the end
 * user it is for, with a plain id (`Toolgate-User`, keys with `actAs: "header"` only) or a signed user
 * token from one of `identity.appTokens` (`Toolgate-User-Token`, keys with any `actAs`). The caller
 * then acts for that user, its rights narrowed to the user's roles (caller.ts). A credential that may
 * not act for users and sends either header is refused, so nothing runs and nothing is recorded under
 * a user it could not vouch for.
 */

const USER_HEADER = "Toolgate-User";
const USER_TOKEN_HEADER = "Toolgate-User-Token";

function forbidden(message: string) {
  return refuse(403, "act_as_forbidden", message);
}

/** The request's two headers (worker/identity/act-as.ts reads them), and the tenant it came to. */
export interface ActAsRequest {
  tenant: TenantView;
  header: string | undefined;
  token: string | undefined;
}

/**
 * The caller acting for the user the request names, or `caller` itself when it names none.
 * Refusals (nothing runs): a grant or a person sending either header, a key without `actAs`, or with
 * `actAs: "token"` sending a plain id → 403 act_as_forbidden; both headers, or an id that is not 1-256
 * visible ASCII characters → 400 invalid_user; a token that does not verify → 401 invalid_user_token
 * (503 keys_unavailable when its issuer's keys cannot be had); a user no role includes → 403 no_role.
 */
export async function actAs({ tenant, header, token }: ActAsRequest, caller: Caller): Promise<Caller> {
  if (header === undefined && token === undefined) return caller;
  const sent = header === undefined ? USER_TOKEN_HEADER : USER_HEADER;
  if (caller.oauth || caller.person)
    throw forbidden(`A ${caller.oauth ? "grant" : "signed-in person"} acts for its own user; it may not send ${sent}.`);
  if (caller.actAs === undefined)
    throw forbidden(`The key "${caller.keyName}" may not act for users (it sent ${sent}); an admin gives it actAs.`);
  if (header !== undefined && token !== undefined)
    throw refuse(400, "invalid_user", `Send ${USER_HEADER} or ${USER_TOKEN_HEADER}, not both.`);
  if (header !== undefined && caller.actAs !== "header")
    throw forbidden(
      `The key "${caller.keyName}" sends signed user tokens only (${USER_TOKEN_HEADER}); its actAs is "token".`,
    );
  const resolved =
    header !== undefined ? await resolveUser(tenant, headerUser(header)) : await tokenUser(tenant, token!);
  return keyActingFor(caller, resolved);
}

function headerUser(value: string): ClaimedUser {
  const read = userFromHeader(value);
  if (!read.ok) throw refuse(400, "invalid_user", read.reason);
  return read.user;
}

/**
 * The user a signed user token names, with their roles: kept from an earlier use of the same token in
 * this tenant view while it lives (token-cache.ts), else verified: its (unverified) `iss` picks the
 * `identity.appTokens` entry, whose key set, audience, algorithms and lifetime bound then verify it.
 * Refused with 401 invalid_user_token naming why,
 * 503 keys_unavailable when the issuer's keys cannot be had, or 403 no_role.
 */
async function tokenUser(tenant: ActAsRequest["tenant"], token: string): Promise<ResolvedUser> {
  const kept = keptTokenUser(tenant, token);
  if (kept !== undefined) return kept;
  const identity = tenant.config.identity;
  const refused = (why: string) => refuse(401, "invalid_user_token", `The user token is refused: ${why}.`);
  if (!identity || identity.appTokens.length === 0)
    throw refused("this tenant trusts no app tokens (identity.appTokens)");
  const issuer = readUnverified(token)?.claims.iss;
  const entry = identity.appTokens.find((candidate) => candidate.issuer === issuer);
  if (!entry) throw refused("its issuer (iss) is not one of identity.appTokens");
  const verified = await verifyJwt(token, {
    jwksUri: entry.jwksUri,
    issuer: entry.issuer,
    audience: entry.audience,
    algorithms: entry.algorithms,
    maxLifetimeSeconds: entry.maxLifetimeSeconds,
  });
  if (!verified.ok) throw jwtRefusal(verified, "invalid_user_token", "The user token");
  const read = userFromClaims(verified.claims, claimsFor(identity, "app-token", entry), "app-token");
  if (!read.ok) throw refused(read.reason);
  const resolved = await resolveUser(tenant, read.user);
  keepTokenUser(tenant, token, resolved, verified.claims.exp as number);
  return resolved;
}
