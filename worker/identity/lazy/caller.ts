import { refuse } from "./refused";
import { intersectScopes, intersectTools, type Rights, rightsOf, roleGroups } from "./rights";
import { type ClaimedUser, userKey } from "./user";
import type { Caller, CallerRateLimit, CallerUser, TenantView } from "./types";

/**
 * A caller that acts for a user: the credential's own rights narrowed to the user's roles.
 *
 * | credential             | scopes              | tools        | rate limits      | binding                   |
 * | session / Access       | role scopes         | role tools   | user's           | the session / the user    |
 * | a person's OAuth grant | grant ∩ role scopes | grant ∩ role | grant's + user's | the grant's               |
 * | key acting for a user  | key ∩ role scopes   | key ∩ role   | key's + user's   | SHA-256(key's‖0‖user key) |
 *
 * `admin` survives an intersection only where both sides hold it.
 */

/** A user with their roles applied: the CallerUser a Caller carries, and their rights. */
export interface ResolvedUser {
  user: CallerUser;
  rights: Rights;
}

/**
 * The user's roles and rights in `tenant`, and their key; their groups cut to those a role names.
 * Throws (Refused) 403 no_role when the tenant has roles and none includes them.
 */
export async function resolveUser(tenant: TenantView, claimed: ClaimedUser): Promise<ResolvedUser> {
  const roles = tenant.config.identity?.roles;
  const rights = rightsOf(roles, claimed);
  if (rights === null)
    throw refuse(
      403,
      "no_role",
      `No role of this tenant includes the user "${claimed.id}" (identity.roles): an admin gives them one.`,
    );
  const named = roleGroups(roles);
  const { groups, ...ref } = claimed;
  return {
    user: {
      ...ref,
      groups: groups.filter((group) => named.has(group)),
      roles: rights.roles,
      key: await userKey(tenant.name, claimed.id),
    },
    rights,
  };
}

/** The user's own bucket, when a role limits them. */
function userLimit({ user, rights }: ResolvedUser): CallerRateLimit[] {
  return rights.ratePerMinute === undefined ? [] : [{ id: `user:${user.key}`, perMinute: rights.ratePerMinute }];
}

/** The credential's rights narrowed to the user's, with both rate limits; everything else the credential's. */
function narrowed(credential: Caller, resolved: ResolvedUser): Caller {
  const { tools: _tools, rateLimits: _rateLimits, ...rest } = credential;
  const tools = intersectTools(credential.tools, resolved.rights.tools);
  const rateLimits = [...(credential.rateLimits ?? []), ...userLimit(resolved)];
  return {
    ...rest,
    scopes: intersectScopes(credential.scopes, resolved.rights.scopes),
    ...(tools ? { tools } : {}),
    ...(rateLimits.length > 0 ? { rateLimits } : {}),
    user: resolved.user,
  };
}

const encoder = new TextEncoder();

/** SHA-256 of `label`: a caller's binding (as keys/cache.ts bindingOf makes a key's). */
async function bindingOf(label: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(label)));
}

/**
 * A key acting for its app's user: the key's name (records stay the key's), its rights narrowed to the
 * user's, and a binding of both, so an MCP session opened for one user is "not found" for another.
 */
export async function keyActingFor(key: Caller, resolved: ResolvedUser): Promise<Caller> {
  const userPart = encoder.encode(resolved.user.key);
  const joined = new Uint8Array(key.binding.length + 1 + userPart.length);
  joined.set(key.binding);
  joined.set(userPart, key.binding.length + 1);
  const binding = new Uint8Array(await crypto.subtle.digest("SHA-256", joined));
  return { ...narrowed(key, resolved), binding };
}

/** A person's OAuth grant (consented by them, for themselves): the grant's rights narrowed to the user's roles now. */
export function grantOfUser(grant: Caller, resolved: ResolvedUser): Caller {
  return narrowed(grant, resolved);
}

/** How a person's own console credential came: the session cookie (OIDC sign-in) or an Access assertion. */
export type PersonCredential =
  | { via: "cookie"; sessionId: string; expiresAt: number }
  | { via: "access"; expiresAt: number };

/**
 * A person signed in to the console: their roles' rights alone, named `session:<user key>` or
 * `access:<user key>` (so their calls are theirs whatever the key names of the tenant), bound to the
 * session (or, for Access, to the user).
 */
export async function personCaller(resolved: ResolvedUser, credential: PersonCredential): Promise<Caller> {
  const { user, rights } = resolved;
  const rateLimits = userLimit(resolved);
  const label =
    credential.via === "cookie" ? `toolgate/session/${credential.sessionId}` : `toolgate/access/${user.key}`;
  return {
    keyName: `${credential.via === "cookie" ? "session" : "access"}:${user.key}`,
    scopes: rights.scopes,
    binding: await bindingOf(label),
    ...(rights.tools ? { tools: rights.tools } : {}),
    ...(rateLimits.length > 0 ? { rateLimits } : {}),
    person: credential,
    user,
  };
}
