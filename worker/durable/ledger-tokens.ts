/**
 * Short-lived tokens for EventSource, which cannot send headers: a key never goes in a URL. Stored
 * as SHA-256 hashes, so a read of the table gives nothing usable; expired ones are pruned by the alarm.
 */
async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function issueToken(sql: SqlStorage, scopes: readonly string[], expiresAt: number): Promise<string> {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  const token = `evt_${btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")}`;
  sql.exec("INSERT INTO tokens (hash, scopes, expires_at) VALUES (?, ?, ?)", await sha256Hex(token), scopes.join(" "), expiresAt);
  return token;
}

/** The scopes of a live token, or null. */
export async function checkToken(sql: SqlStorage, token: string, now: number): Promise<string[] | null> {
  const row = sql
    .exec<{ scopes: string }>("SELECT scopes FROM tokens WHERE hash = ? AND expires_at > ?", await sha256Hex(token), now)
    .toArray()[0];
  return row ? row.scopes.split(" ").filter(Boolean) : null;
}
