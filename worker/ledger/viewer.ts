import type { UserRef } from "../../src/contract/users";
import type { Caller } from "../env";

/**
 * Whose records a reader may see: null for every record of the tenant (admin); otherwise the calls
 * made with the key (or grant) named `key`, and of those, with `user`, only the calls made for that
 * user's id. A person (console sign-in, Access) is `{ user }`: their calls from every key, grant and
 * surface. A key or grant acting for a user is `{ key, user }`: what it did for that user. A field
 * left out does not narrow; rows made for no user (or before users were recorded) have no user id,
 * so a reader with `user` never sees them.
 */
export type Viewer = null | { key?: string; user?: string };

/** Who a call was made for, as the ledger keeps it with the row and its events. */
export interface CallWho {
  /** The name of the key or grant that made it (never the key); null: none (tests, internal runs). */
  key: string | null;
  /** The user it was made for; null or absent: none. */
  user?: UserRef | null;
}

/** Whose records the caller reads: admin every record, a person their own, a key or grant its own (per user). */
export function viewerOf(caller: Caller): Viewer {
  if (caller.scopes.has("admin")) return null;
  if (caller.person && caller.user) return { user: caller.user.id };
  return caller.user ? { key: caller.keyName, user: caller.user.id } : { key: caller.keyName };
}

/** Whether a row (or event) made with `key` for the user id `userId` is the viewer's to see. */
export function sees(viewer: Viewer, key: string | null, userId: string | null): boolean {
  if (viewer === null) return true;
  if (viewer.key !== undefined && key !== viewer.key) return false;
  return viewer.user === undefined || userId === viewer.user;
}

/**
 * The same test as SQL over a table's `key_name` and `user_id` columns, with its bindings: the
 * predicate stays one shape for every viewer, so SQLite caches one plan per statement.
 */
export function viewerSql(viewer: Viewer): { where: string; bind: (string | null)[] } {
  return {
    where: "(? IS NULL OR key_name = ?) AND (? IS NULL OR user_id = ?)",
    bind: [viewer?.key ?? null, viewer?.key ?? null, viewer?.user ?? null, viewer?.user ?? null],
  };
}

/** A user as the ledger stores it with a row: the wire's UserRef and nothing else (no roles, groups or keys). */
export function storedUser(user: UserRef | null | undefined): UserRef | null {
  if (!user) return null;
  return {
    id: user.id,
    ...(user.name === undefined ? {} : { name: user.name }),
    ...(user.email === undefined ? {} : { email: user.email }),
    source: user.source,
  };
}
