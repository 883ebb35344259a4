import type { UserRef, UserSource } from "../../../src/contract/users";
import type { AppTokenView, ClaimNames, IdentityView } from "./types";

/**
 * A user from a verified token's claims, bounded so sessions, grants and records stay small. In the
 * library module: only a request whose token was verified (which loaded it) reads claims.
 */

/** Longest values kept: an id is refused past its bound; a name is cut; an email or group past it is dropped. */
export const USER_BOUNDS = { id: 256, name: 200, email: 320, groups: 256, group: 256 } as const;

export type { ClaimNames } from "./types";

/** A user as read from a token or header, before roles: groups are every group it named (bounded). */
export interface ClaimedUser extends UserRef {
  groups: readonly string[];
}

/** The user, or why none could be read (a message for the caller, never echoing a credential). */
export type UserResult = { ok: true; user: ClaimedUser } | { ok: false; reason: string };

/** Whether the text holds a C0 or C1 control character (or DEL): never part of an id, group or email. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return true;
  }
  return false;
}
/** A claim by name, or else by dot path into nested objects ("custom.groups"); undefined when absent. */
export function readClaim(claims: Readonly<Record<string, unknown>>, path: string): unknown {
  if (Object.hasOwn(claims, path)) return claims[path];
  let value: unknown = claims;
  for (const part of path.split(".")) {
    if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.hasOwn(value, part))
      return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A user id from a claim: a string (or an integer, as some providers give), 1-256 characters, no controls. */
function idOf(value: unknown): string | undefined {
  const id = typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof id !== "string" || id.length === 0 || id.length > USER_BOUNDS.id || hasControl(id)) return undefined;
  return id;
}

/** A display string cut to `max` characters (whole code points), controls dropped; undefined if none is left. */
function displayOf(value: unknown, max: number): string | undefined {
  if (typeof value !== "string") return undefined;
  const text = [...value]
    .filter((char) => !hasControl(char))
    .slice(0, max)
    .join("")
    .trim();
  return text === "" ? undefined : text;
}

/** Groups from a claim: a list of strings (a single string is one group); at most 256, each at most 256 characters. */
function groupsOf(value: unknown): string[] {
  const list = typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
  const groups: string[] = [];
  for (const item of list) {
    if (groups.length === USER_BOUNDS.groups) break;
    if (typeof item === "string" && item.length > 0 && item.length <= USER_BOUNDS.group && !hasControl(item))
      groups.push(item);
  }
  return groups;
}

/**
 * The user a verified token's claims name, read through `names` (worker/identity/config.ts claimsFor).
 * An email whose `email_verified` is false is never used: a token naming its user by such an email is
 * refused, and elsewhere the email is left out (roles match users by email).
 */
export function userFromClaims(
  claims: Readonly<Record<string, unknown>>,
  names: ClaimNames,
  source: Exclude<UserSource, "header">,
): UserResult {
  const unverified = claims.email_verified === false;
  if (names.id === names.email && unverified)
    return { ok: false, reason: `its "${names.id}" claim names the user by an email that is not verified` };
  const id = idOf(readClaim(claims, names.id));
  if (id === undefined)
    return {
      ok: false,
      reason: `it has no "${names.id}" claim naming the user (1-256 characters, no control characters)`,
    };
  const name = displayOf(readClaim(claims, names.name), USER_BOUNDS.name);
  const emailValue = unverified ? undefined : readClaim(claims, names.email);
  const email = typeof emailValue === "string" && emailValue.length <= USER_BOUNDS.email ? emailValue : undefined;
  return {
    ok: true,
    user: {
      id,
      source,
      ...(name === undefined ? {} : { name }),
      ...(email === undefined || hasControl(email) ? {} : { email }),
      groups: groupsOf(readClaim(claims, names.groups)),
    },
  };
}

/** Where a user came from, for picking the claims that name them. */
export type ClaimSource = "oidc" | "access" | "app-token" | "header";

const DEFAULT_CLAIMS: ClaimNames = { id: "sub", name: "name", email: "email", groups: "groups" };
/** Access's assertion names people by email; the claims of the IdP behind Access come under `custom`. */
const ACCESS_CLAIMS: ClaimNames = { ...DEFAULT_CLAIMS, id: "email", groups: "custom.groups" };

/**
 * The claims naming a user of `source`: the source's own (an app-token issuer's entry, or
 * `oidc`/`access`) over the tenant's `claims`, over the defaults (Access: id email, groups custom.groups).
 */
export function claimsFor(
  identity: Pick<IdentityView, "oidc" | "access" | "claims">,
  source: ClaimSource,
  issuer?: Pick<AppTokenView, "claims">,
): ClaimNames {
  const own =
    source === "oidc"
      ? identity.oidc?.claims
      : source === "access"
        ? identity.access?.claims
        : source === "app-token"
          ? issuer?.claims
          : undefined;
  return { ...(source === "access" ? ACCESS_CLAIMS : DEFAULT_CLAIMS), ...identity.claims, ...own };
}
