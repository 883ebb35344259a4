import type { Context } from "hono";
import type { AppEnv, Caller } from "../env";
import { ApiError } from "../errors";
import { identityLibrary } from "../identity-library";
import { tenantIdentity, type IdentityNamespace } from "./address";
import { personCaller, resolveUser } from "./caller";
import { claimsFor, type AccessConfig, type IdentityConfig } from "./config";
import { jwtRefusal } from "./refusal";
import { cookieNames, readCookie, readSession } from "./session-cookie";
import type { ClaimedUser } from "./user";

/**
 * A person's ambient credential — the console's session cookie, or a Cloudflare Access assertion —
 * counted only when the request says so (`Toolgate-Session: 1`) and comes from the page's own origin.
 * The header is one CORS never allows (middleware/cors.ts), so another site's page cannot send it;
 * SameSite=Strict is the second wall. Without it, cookies and assertions are ignored.
 */

/** The console's marker: "use my session". */
export const SESSION_HEADER = "Toolgate-Session";
/** Cloudflare Access's signed assertion of who reached the application (never the CF_Authorization cookie). */
export const ACCESS_HEADER = "Cf-Access-Jwt-Assertion";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Whether the request asks for its ambient credential to count. */
export function wantsSession(c: Context<AppEnv>): boolean {
  return c.req.header(SESSION_HEADER) === "1";
}

/**
 * 403 cross_site when a browser says the request came from another site (Sec-Fetch-Site), or an unsafe
 * method's Origin is not this origin.
 */
export function checkSameOrigin(c: Context<AppEnv>): void {
  const site = c.req.header("Sec-Fetch-Site");
  const origin = new URL(c.req.url).origin;
  const refuse = (why: string) =>
    new ApiError(403, "cross_site", `A signed-in session is used only by this origin's own pages: ${why}.`);
  if (site !== undefined && site !== "same-origin") throw refuse(`Sec-Fetch-Site is "${site}"`);
  if (!SAFE_METHODS.has(c.req.method) && c.req.header("Origin") !== origin)
    throw refuse(`a ${c.req.method} must come with Origin ${origin}`);
}

const assertions = new Map<string, { user: ClaimedUser; exp: number }>();
const MAX_ASSERTIONS = 1_024;

/** The person an Access assertion names: verified against the team's certs, kept per isolate until it expires. */
async function accessUser(c: Context<AppEnv>, identity: IdentityConfig, access: AccessConfig) {
  const token = c.req.header(ACCESS_HEADER);
  if (!token)
    throw new ApiError(401, "invalid_assertion", `No ${ACCESS_HEADER}: reach this console through Cloudflare Access.`);
  const now = Date.now();
  const key = `${c.var.tenant.name}\n${token}`;
  const kept = assertions.get(key);
  if (kept && kept.exp * 1000 > now) return { user: kept.user, exp: kept.exp };
  const library = await identityLibrary();
  const verified = await library.verifyJwt(token, {
    jwksUri: `${access.teamDomain}/cdn-cgi/access/certs`,
    issuer: access.teamDomain,
    audience: access.audience,
    algorithms: ["RS256"],
  });
  if (!verified.ok) throw jwtRefusal(verified, "invalid_assertion", "The Access assertion");
  const read = library.userFromClaims(verified.claims, claimsFor(identity, "access"), "access");
  if (!read.ok) throw new ApiError(401, "invalid_assertion", `The Access assertion is refused: ${read.reason}.`);
  const exp = verified.claims.exp as number;
  if (assertions.size >= MAX_ASSERTIONS) assertions.delete(assertions.keys().next().value!);
  assertions.set(key, { user: read.user, exp });
  return { user: read.user, exp };
}

/**
 * The person behind the request's ambient credential (Toolgate-Session: 1 sent, the tenant signs
 * people in): checked same-origin first, then the Access assertion (identity.access) or the session
 * cookie (identity.oidc). 401 invalid_session / invalid_assertion when it is missing, forged, expired
 * or revoked; 403 no_role when no role includes them any more.
 */
export async function ambientCaller(c: Context<AppEnv>): Promise<Caller> {
  checkSameOrigin(c);
  const { tenant } = c.var;
  const identity = tenant.config.identity!;
  if (identity.access) {
    const { user, exp } = await accessUser(c, identity, identity.access);
    return personCaller(await resolveUser(tenant, user), { via: "access", expiresAt: exp * 1000 });
  }
  const names = cookieNames(new URL(c.req.url));
  const value = readCookie(c.req.header("Cookie"), names.session);
  const refuse = (why: string) => new ApiError(401, "invalid_session", `${why}: sign in again.`);
  if (!value) throw refuse("No session cookie");
  const address = tenantIdentity(c.env as unknown as { IDENTITY: IdentityNamespace }, tenant.name);
  const session = await readSession(address, value);
  if (!session) throw refuse("The session is expired, signed out or not valid here");
  return personCaller(await resolveUser(tenant, session.user), {
    via: "cookie",
    sessionId: session.sid,
    expiresAt: session.exp * 1000,
  });
}
