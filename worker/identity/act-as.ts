import type { Context } from "hono";
import type { AppEnv, Caller } from "../env";
import { identityLibrary } from "../identity-library";
import { answered } from "./answer";

/**
 * Chat-app backends speak for their users: after the credential check, a request may name the end
 * user it is for, with a plain id (`Toolgate-User`, keys with `actAs: "header"` only) or a signed user
 * token from one of `identity.appTokens` (`Toolgate-User-Token`, keys with any `actAs`). The caller
 * then acts for that user, its rights narrowed to the user's roles. A request without either header
 * costs nothing more; one with either loads the library module (lazy/act-as.ts), which refuses a
 * credential that may not act for users, so nothing runs and nothing is recorded under a user it
 * could not vouch for.
 */

/** The end user's id, sent by a key with `actAs: "header"`. */
export const USER_HEADER = "Toolgate-User";
/** A signed user token (JWT) from an `identity.appTokens` issuer, sent by a key with any `actAs`. */
export const USER_TOKEN_HEADER = "Toolgate-User-Token";

/**
 * The caller acting for the user the request names, or `caller` itself when it names none.
 * Refusals (nothing runs): a grant or a person sending either header, a key without `actAs`, or with
 * `actAs: "token"` sending a plain id → 403 act_as_forbidden; both headers, or an id that is not 1-256
 * visible ASCII characters → 400 invalid_user; a token that does not verify → 401 invalid_user_token
 * (503 keys_unavailable when its issuer's keys cannot be had); a user no role includes → 403 no_role.
 */
export async function actAs(c: Context<AppEnv>, caller: Caller): Promise<Caller> {
  const header = c.req.header(USER_HEADER);
  const token = c.req.header(USER_TOKEN_HEADER);
  if (header === undefined && token === undefined) return caller;
  const library = await identityLibrary();
  return answered(await library.actFor({ tenant: c.var.tenant, header, token }, caller));
}
