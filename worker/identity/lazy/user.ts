import { base64url } from "jose";
import type { UserResult } from "./claims";

/**
 * A user from a key's plain header, and the key that names any user in toolgate's own state. Users
 * from verified claims are read by claims.ts (userFromClaims).
 */

export type { ClaimedUser, UserResult } from "./claims";

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
  return `u_${base64url.encode(new Uint8Array(digest)).slice(0, 32)}`;
}

/** The user a `Toolgate-User` header names: its whole value, visible ASCII, 1-256 characters. No groups. */
export function userFromHeader(value: string): UserResult {
  if (!HEADER_ID.test(value))
    return { ok: false, reason: "Toolgate-User must be the user's id: 1-256 visible ASCII characters" };
  return { ok: true, user: { id: value, source: "header", groups: [] } };
}
