/**
 * Keys the tenant's Worker signs with (an MCP requestState, worker/mcp/v2026/request-state.ts): 256 random
 * bits made on first use and kept in the shard's storage, so every isolate signs and checks with the
 * same key, across restarts. They never leave the Worker.
 */

const KEY_BYTES = 32;

export function readOrMakeSecret(sql: SqlStorage, name: string): Uint8Array {
  const row = sql.exec<{ value: ArrayBuffer }>("SELECT value FROM secrets WHERE name = ?", name).toArray()[0];
  if (row) return new Uint8Array(row.value);
  const value = crypto.getRandomValues(new Uint8Array(KEY_BYTES));
  sql.exec("INSERT INTO secrets (name, value) VALUES (?, ?)", name, value);
  return value;
}
