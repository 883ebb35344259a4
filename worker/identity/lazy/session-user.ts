import type { AmbientRequest } from "./ambient";
import { resolveUser } from "./caller";
import { cookieNames, readCookie, readSession } from "./session-cookie";

/**
 * The user key of the person signed in to the console, for a top-level navigation of this origin's
 * (the connect pages): the Strict session cookie comes same-site only, so another site's link or form
 * gets undefined, as a missing, forged, expired or revoked session does.
 */
export async function sessionUserKey({ request, tenant, identity }: AmbientRequest): Promise<string | undefined> {
  const site = request.headers.get("Sec-Fetch-Site");
  if (site !== null && site !== "same-origin" && site !== "none") return undefined;
  const value = readCookie(request.headers.get("Cookie") ?? undefined, cookieNames(new URL(request.url)).session);
  if (!value) return undefined;
  const session = await readSession(identity, value);
  return session ? (await resolveUser(tenant, session.user)).user.key : undefined;
}
