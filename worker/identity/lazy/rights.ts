import type { RoleView, Scope } from "./types";

/**
 * What a user may do, from the tenant's roles (`identity.roles`). A role matches when its `groups`
 * hold "*" or one of the user's groups, or its `users` hold the user's id or email. The user's rights
 * are the union of the matched roles': scopes (a role without scopes gives "call"), tools (every tool
 * if any matched role names none), and the largest rate (none if any matched role has none). No roles
 * configured: every user may call every tool. Pure: composed with a credential's own rights in caller.ts.
 */

export interface Rights {
  /** The names of the matched roles, in the configuration's order; empty when no roles are configured. */
  roles: readonly string[];
  scopes: ReadonlySet<Scope>;
  /** Only these tools; absent: every tool. */
  tools?: ReadonlySet<string>;
  /** Calls per minute for this user across every key, grant and isolate; absent: no limit. */
  ratePerMinute?: number;
}

/** Who is matched against the roles: header users have no groups and no email. */
export interface RoleSubject {
  id: string;
  email?: string;
  groups: readonly string[];
}

const EVERYONE: Rights = { roles: [], scopes: new Set(["call"]) };

/** The rights of `who` under `roles`, or null when roles are configured and none matches. */
export function rightsOf(roles: Readonly<Record<string, RoleView>> | undefined, who: RoleSubject): Rights | null {
  if (roles === undefined) return EVERYONE;
  const groups = new Set(who.groups);
  const matched = Object.entries(roles).filter(
    ([, role]) =>
      role.groups?.some((group) => group === "*" || groups.has(group)) ||
      role.users?.some((user) => user === who.id || (who.email !== undefined && user === who.email)),
  );
  if (matched.length === 0) return null;
  const scopes = new Set<Scope>(matched.flatMap(([, role]) => role.scopes ?? ["call"]));
  const everyTool = matched.some(([, role]) => role.tools === undefined);
  const unlimited = matched.some(([, role]) => role.ratePerMinute === undefined);
  const rights: Rights = { roles: matched.map(([name]) => name), scopes };
  if (!everyTool) rights.tools = new Set(matched.flatMap(([, role]) => role.tools ?? []));
  if (!unlimited) rights.ratePerMinute = Math.max(...matched.map(([, role]) => role.ratePerMinute ?? 0));
  return rights;
}

const named = new WeakMap<object, ReadonlySet<string>>();

/**
 * The groups some role names ("*" aside), once per configuration: the only groups worth keeping of a
 * user's (an IdP may send hundreds), so sessions and grant props stay small.
 */
export function roleGroups(roles: Readonly<Record<string, RoleView>> | undefined): ReadonlySet<string> {
  if (roles === undefined) return new Set();
  let groups = named.get(roles);
  if (!groups) {
    groups = new Set(Object.values(roles).flatMap((role) => (role.groups ?? []).filter((group) => group !== "*")));
    named.set(roles, groups);
  }
  return groups;
}

/** admin, where both hold it; call, where both hold call or admin (admin holds every scope). */
export function intersectScopes(a: ReadonlySet<Scope>, b: ReadonlySet<Scope>): Set<Scope> {
  const scopes = new Set<Scope>();
  if (a.has("admin") && b.has("admin")) scopes.add("admin");
  if ((a.has("call") || a.has("admin")) && (b.has("call") || b.has("admin"))) scopes.add("call");
  return scopes;
}

/** Tools both allow (absent: every tool). */
export function intersectTools(
  a: ReadonlySet<string> | undefined,
  b: ReadonlySet<string> | undefined,
): ReadonlySet<string> | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return new Set([...a].filter((tool) => b.has(tool)));
}
