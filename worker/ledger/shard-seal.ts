import { shardOf } from "./shard-map";

/**
 * A shard's side of a shard map change: the lowest map version it still takes new ids from (sealed
 * below it), and how many of its records a set of newer versions would not find.
 */

/** The lowest map version whose writers may insert new rows here (1 until a change seals the shard). */
export function readSeal(sql: SqlStorage): number {
  return (
    sql.exec<{ value: number }>("SELECT value FROM ledger_meta WHERE key = 'sealed_below'").toArray()[0]?.value ?? 1
  );
}

/** Seals the shard below `version` (never lowers it); answers the seal now in force. */
export function writeSeal(sql: SqlStorage, version: number): number {
  const sealed = Math.max(readSeal(sql), version);
  sql.exec("INSERT OR REPLACE INTO ledger_meta (key, value) VALUES ('sealed_below', ?)", sealed);
  return sealed;
}

/** Rows of shard `index` whose ids none of the shard counts `newer` place here: lost if the older versions went. */
export function strandedRows(sql: SqlStorage, index: number, newer: readonly number[]): number {
  let stranded = 0;
  for (const { call_id } of sql.exec<{ call_id: string }>("SELECT call_id FROM calls")) {
    if (!newer.some((shards) => shardOf(call_id, shards) === index)) stranded++;
  }
  return stranded;
}
