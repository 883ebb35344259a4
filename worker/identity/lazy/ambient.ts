import { personCaller, resolveUser } from "./caller";
import { type ClaimedUser, claimsFor, userFromClaims } from "./claims";
import { verifyJwt } from "./jwt";
import { jwtRefusal, refuse } from "./refused";
import { cookieNames, readCookie, readSession } from "./session-cookie";
import type { AccessView, Caller, IdentityAddressView, IdentityView, TenantView } from "./types";

/**
 * A person's ambient credential — the console's session cookie, or a Cloudflare Access assertion —
 * counted only when the request says so (`Toolgate-Session: 1`, checked by worker/identity/ambient.ts
 * before this module loads) and comes from the page's own origin. The header is one CORS never allows
 * (middleware/cors.ts), so another site's page cannot send it; SameSite=Strict is the second wall.
 */

/** Cloudflare Access's signed assertion of who reached the application (never the CF_Authorization cookie). */
const ACCESS_HEADER = "Cf-Access-Jwt-Assertion";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** A request that counts its ambient credential, at a tenant that signs people in. */
export interface AmbientRequest {
  request: Request;
  tenant: TenantView;
  /** The tenant's Identity object (sessions, revocations). */
  identity: IdentityAddressView;
}

/**
 * Throws 403 cross_site when a browser says the request came from another site (Sec-Fetch-Site), or an
 * unsafe method's Origin is not this origin.
 */
export function checkSameOrigin(request: Request): void {
  const site = request.headers.get("Sec-Fetch-Site");
  const origin = new URL(request.url).origin;
  const refused = (why: string) =>
    refuse(403, "cross_site", `A signed-in session is used only by this origin's own pages: ${why}.`);
  if (site !== null && site !== "same-origin") throw refused(`Sec-Fetch-Site is "${site}"`);
  if (!SAFE_METHODS.has(request.method) && request.headers.get("Origin") !== origin)
    throw refused(`a ${request.method} must come with Origin ${origin}`);
}

const assertions = new Map<string, { user: ClaimedUser; exp: number }>();
const MAX_ASSERTIONS = 1_024;

/** The person an Access assertion names: verified against the team's certs, kept per isolate until it expires. */
export async function accessUser(request: AmbientRequest, identity: IdentityView, access: AccessView) {
  const token = request.request.headers.get(ACCESS_HEADER);
  if (!token)
    throw refuse(401, "invalid_assertion", `No ${ACCESS_HEADER}: reach this console through Cloudflare Access.`);
  const now = Date.now();
  const key = `${request.tenant.name}\n${token}`;
  const kept = assertions.get(key);
  if (kept && kept.exp * 1000 > now) return { user: kept.user, exp: kept.exp };
  const verified = await verifyJwt(token, {
    jwksUri: `${access.teamDomain}/cdn-cgi/access/certs`,
    issuer: access.teamDomain,
    audience: access.audience,
    algorithms: ["RS256"],
  });
  if (!verified.ok) throw jwtRefusal(verified, "invalid_assertion", "The Access assertion");
  const read = userFromClaims(verified.claims, claimsFor(identity, "access"), "access");
  if (!read.ok) throw refuse(401, "invalid_assertion", `The Access assertion is refused: ${read.reason}.`);
  const exp = verified.claims.exp as number;
  if (assertions.size >= MAX_ASSERTIONS) assertions.delete(assertions.keys().next().value!);
  assertions.set(key, { user: read.user, exp });
  return { user: read.user, exp };
}

/**
 * The person behind the request's ambient credential: checked same-origin first, then the Access
 * assertion (identity.access) or the session cookie (identity.oidc). 401 invalid_session /
 * invalid_assertion when it is missing, forged, expired or revoked; 403 no_role when no role includes
 * them any more.
 */
export async function ambientCaller(ambient: AmbientRequest): Promise<Caller> {
  const { request, tenant } = ambient;
  checkSameOrigin(request);
  const identity = tenant.config.identity!;
  if (identity.access) {
    const { user, exp } = await accessUser(ambient, identity, identity.access);
    return personCaller(await resolveUser(tenant, user), { via: "access", expiresAt: exp * 1000 });
  }
  const names = cookieNames(new URL(request.url));
  const value = readCookie(request.headers.get("Cookie") ?? undefined, names.session);
  const refused = (why: string) => refuse(401, "invalid_session", `${why}: sign in again.`);
  if (!value) throw refused("No session cookie");
  const session = await readSession(ambient.identity, value);
  if (!session) throw refused("The session is expired, signed out or not valid here");
  return personCaller(await resolveUser(tenant, session.user), {
    via: "cookie",
    sessionId: session.sid,
    expiresAt: session.exp * 1000,
  });
}
