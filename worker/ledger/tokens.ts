/**
 * Short-lived tokens for EventSource, which cannot send headers: a key never goes in a URL. Stored
 * as SHA-256 hashes, so a read of the table gives nothing usable; expired ones are pruned by the alarm.
 */
async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A token for the key named `key`: the stream it opens shows what that key may see. */
export async function issueToken(
  sql: SqlStorage,
  scopes: readonly string[],
  key: string,
  expiresAt: number,
): Promise<string> {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  const token = `evt_${btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")}`;
  sql.exec(
    "INSERT INTO tokens (hash, scopes, key_name, expires_at) VALUES (?, ?, ?, ?)",
    await sha256Hex(token),
    scopes.join(" "),
    key,
    expiresAt,
  );
  return token;
}

/** The key name and scopes of a live token, or null (also for tokens issued before keys were named). */
export async function checkToken(
  sql: SqlStorage,
  token: string,
  now: number,
): Promise<{ scopes: string[]; key: string } | null> {
  const row = sql
    .exec<{ scopes: string; key_name: string | null }>(
      "SELECT scopes, key_name FROM tokens WHERE hash = ? AND expires_at > ?",
      await sha256Hex(token),
      now,
    )
    .toArray()[0];
  return row && row.key_name !== null ? { scopes: row.scopes.split(" ").filter(Boolean), key: row.key_name } : null;
}
