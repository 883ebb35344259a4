import type { Viewer } from "./viewer";

/**
 * Short-lived tokens for EventSource, which cannot send headers: a key never goes in a URL. Stored
 * as SHA-256 hashes, so a read of the table gives nothing usable; expired ones are pruned by the alarm.
 * Each keeps the viewer of the caller that asked for it: the stream shows what that caller may see.
 */
async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A token for the key named `key` seeing as `viewer`: the stream it opens shows what that caller may see. */
export async function issueToken(
  sql: SqlStorage,
  scopes: readonly string[],
  key: string,
  expiresAt: number,
  viewer?: Viewer,
): Promise<string> {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  const token = `evt_${btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")}`;
  sql.exec(
    "INSERT INTO tokens (hash, scopes, key_name, user_id, viewer, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
    await sha256Hex(token),
    scopes.join(" "),
    key,
    viewer?.user ?? null,
    viewer === undefined ? null : JSON.stringify(viewer),
    expiresAt,
  );
  return token;
}

/**
 * The key name, scopes and viewer of a live token, or null (also for tokens issued before keys were
 * named). A token issued before viewers were kept sees as its key did then.
 */
export async function checkToken(
  sql: SqlStorage,
  token: string,
  now: number,
): Promise<{ scopes: string[]; key: string; viewer?: Viewer } | null> {
  const row = sql
    .exec<{ scopes: string; key_name: string | null; viewer: string | null }>(
      "SELECT scopes, key_name, viewer FROM tokens WHERE hash = ? AND expires_at > ?",
      await sha256Hex(token),
      now,
    )
    .toArray()[0];
  if (!row || row.key_name === null) return null;
  const scopes = row.scopes.split(" ").filter(Boolean);
  return row.viewer === null
    ? { scopes, key: row.key_name }
    : { scopes, key: row.key_name, viewer: JSON.parse(row.viewer) as Viewer };
}
