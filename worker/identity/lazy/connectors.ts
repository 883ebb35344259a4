import { refuse } from "./refused";
import type { IdentityAddressView } from "./types";

/**
 * People's connectors (their OAuth grants, owned by their user key), for worker/routes/consents.ts at a
 * tenant that signs people in: a person's own page and revocation, and an admin's page of every
 * grant (the tenant's, then each person's). A tenant without people lists its own grants alone.
 */

/** A page of the OAuth library's list. */
export interface GrantPage<G> {
  items: G[];
  cursor?: string;
}

/** The OAuth library's grant methods used here (its OAuthHelpers has them). */
export interface GrantsApi<G> {
  listUserGrants(userId: string, options?: { limit?: number; cursor?: string }): Promise<GrantPage<G>>;
  revokeGrant(grantId: string, userId: string): Promise<void>;
}

/** Grant owners an admin's page lists at once (each owner's grants are read in parallel). */
const OWNERS_PER_PAGE = 20;

/** People's grants, `OWNERS_PER_PAGE` owners after `after` at a time, each owner's read in parallel. */
async function ownersGrants<G>(api: GrantsApi<G>, identity: IdentityAddressView, after: string) {
  const owners = await identity.object().grantOwners(after || null, OWNERS_PER_PAGE);
  const pages = await Promise.all(owners.map((owner) => api.listUserGrants(owner.key, { limit: 100 })));
  const more = owners.length === OWNERS_PER_PAGE ? { cursor: `o:${owners.at(-1)!.key}` } : {};
  return { items: pages.flatMap((page) => page.items), ...more };
}

/**
 * An admin's page of grants: the tenant's (`tenantOwner`'s; the library's cursor, `t:<cursor>`), then the
 * people's, `OWNERS_PER_PAGE` owners at a time (`o:<last owner's key>`). The page where the tenant's
 * end goes on with the first owners.
 */
export async function adminGrants<G>(
  api: GrantsApi<G>,
  identity: IdentityAddressView,
  tenantOwner: string,
  cursor: string,
): Promise<GrantPage<G>> {
  if (cursor.startsWith("o:")) return ownersGrants(api, identity, cursor.slice(2));
  const page = await api.listUserGrants(tenantOwner, {
    limit: 100,
    ...(cursor.startsWith("t:") ? { cursor: cursor.slice(2) } : {}),
  });
  if (page.cursor) return { items: page.items, cursor: `t:${page.cursor}` };
  const people = await ownersGrants(api, identity, "");
  return { items: [...page.items, ...people.items], ...(people.cursor ? { cursor: people.cursor } : {}) };
}

/**
 * Revokes a grant of the person's (`key`: their user key). A grant not in their list is not found
 * (404), whoever's it is.
 */
export async function revokeOwn<G extends { id: string }>(api: GrantsApi<G>, key: string, id: string): Promise<void> {
  const own = await api.listUserGrants(key, { limit: 1000 });
  if (!own.items.some((grant) => grant.id === id))
    throw refuse(404, "not_found", `You have no connector with the grant ${id}.`);
  await api.revokeGrant(id, key);
}
