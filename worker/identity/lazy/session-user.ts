import { type AmbientRequest, accessUser } from "./ambient";
import { resolveUser } from "./caller";
import { Refused } from "./refused";
import { cookieNames, readCookie, readSession } from "./session-cookie";

/**
 * The user key of the person signed in to the console, for a top-level navigation of this origin's
 * (the connect pages): the Strict session cookie comes same-site only, so another site's link or form
 * gets undefined, as a missing, forged, expired or revoked session does. Behind Cloudflare Access
 * (identity.access): the person the request's Access assertion names, from this origin's pages too.
 */
export async function sessionUserKey(ambient: AmbientRequest): Promise<string | undefined> {
  const { request, tenant, identity } = ambient;
  const site = request.headers.get("Sec-Fetch-Site");
  if (site !== null && site !== "same-origin" && site !== "none") return undefined;
  if (tenant.config.identity?.access) return accessUserKey(ambient);
  const value = readCookie(request.headers.get("Cookie") ?? undefined, cookieNames(new URL(request.url)).session);
  if (!value) return undefined;
  const session = await readSession(identity, value);
  return session ? (await resolveUser(tenant, session.user)).user.key : undefined;
}

/**
 * The user key of the person the request's Cloudflare Access assertion names (identity.access), from
 * any site: a connect's callback comes on the provider's redirect. Undefined when there is no valid
 * assertion, or no role includes its person.
 */
export async function accessUserKey(ambient: AmbientRequest): Promise<string | undefined> {
  const identity = ambient.tenant.config.identity;
  if (!identity?.access) return undefined;
  try {
    const { user } = await accessUser(ambient, identity, identity.access);
    return (await resolveUser(ambient.tenant, user)).user.key;
  } catch (error) {
    if (error instanceof Refused) return undefined;
    throw error;
  }
}
