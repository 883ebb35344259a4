import type { LedgerAddress } from "./address";
import { currentOf, shardOf } from "./shard-map";

/**
 * Call ids this isolate makes up (a 2026 MCP call's) land on one shard of the tenant, drawn once per
 * isolate: its records stored after their answer then leave in one group per delay rather than one per
 * shard, while isolates still spread over all the shards. An id stays a random UUID; only which of a
 * few draws is kept depends on the shard.
 */

/** Where in [0, 1) this isolate's shard lies, whatever the shard count (drawn on first use, not at startup). */
let draw: number | undefined;

/** UUIDs drawn at most for one id: with 4 shards, (3/4)^32 of ids (about 1 in 10,000) land elsewhere. */
const TRIES = 32;

/** A new call id `<prefix><uuid>` on this isolate's shard; before the isolate knows the shard map, any id. */
export function isolateCallId(ledger: LedgerAddress, prefix: string): string {
  let id = `${prefix}${crypto.randomUUID()}`;
  const map = ledger.known();
  if (!map) return id;
  const shards = currentOf(map).shards;
  if (shards === 1) return id;
  const own = Math.floor((draw ??= Math.random()) * shards);
  for (let tries = 1; tries < TRIES && shardOf(id, shards) !== own; tries++) id = `${prefix}${crypto.randomUUID()}`;
  return id;
}
