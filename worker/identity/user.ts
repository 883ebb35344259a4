import type { UserRef, UserSource } from "../../src/contract/users";
import { toBase64Url } from "../mcp/base64url";
import type { ClaimNames } from "./config";

/**
 * A user from what vouches for them (a verified token's claims, or a key's plain header), bounded so
 * sessions, grants and records stay small, and the key that names them in toolgate's own state.
 */

/** Longest values kept: an id is refused past its bound; a name is cut; an email or group past it is dropped. */
export const USER_BOUNDS = { id: 256, name: 200, email: 320, groups: 256, group: 256 } as const;

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
/** A header id: visible ASCII only (headers are bytes; anything else is ambiguous between apps). */
const HEADER_ID = /^[\x21-\x7e]{1,256}$/;

const encoder = new TextEncoder();

/**
 * The key naming a user in toolgate's state: `u_` and 32 base64url characters of
 * SHA-256("toolgate/user\n" + tenant + "\n" + id). The OAuth library's user id of a person's grants
 * (it forbids `:` and puts it in tokens: a hash keeps the person's id out of them), the per-user
 * rate bucket's name, part of MCP session bindings. One person is one key across sources that give
 * the same id.
 */
export async function userKey(tenant: string, id: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(`toolgate/user\n${tenant}\n${id}`));
  return `u_${toBase64Url(new Uint8Array(digest)).slice(0, 32)}`;
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

/** A user id from a claim: a string (or an integer, as some providers give), 1-256 characters, no control characters. */
function idOf(value: unknown): string | undefined {
  const id = typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof id !== "string" || id.length === 0 || id.length > USER_BOUNDS.id || hasControl(id)) return undefined;
  return id;
}

/** A display string, cut to `max` characters (whole code points), control characters dropped; undefined if none is left. */
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

/** The user a `Toolgate-User` header names: its whole value, visible ASCII, 1-256 characters. No groups. */
export function userFromHeader(value: string): UserResult {
  if (!HEADER_ID.test(value))
    return { ok: false, reason: "Toolgate-User must be the user's id: 1-256 visible ASCII characters" };
  return { ok: true, user: { id: value, source: "header", groups: [] } };
}
