import { callDurable } from "../durable/call";
import type { EventBatch, Viewer } from "./types";
import { changeError, currentOf, firstMap, spanOf, type ShardMap } from "./shard-map";

/**
 * The tenant's shard map, kept by one ledger object of its own (`<tenant>/ledger/map`) in its
 * synchronous KV storage. A change is made in two steps, each safe to repeat: the change is stored as
 * pending and every shard of the live versions is sealed (from then on it refuses to insert ids placed
 * by an older map), then the new version is published. An isolate learns a version only once it is
 * published, so every shard it may have to ask already refuses stale writers: an id an older shard
 * did not hold then, it never will.
 */

const MAP_KEY = "shard-map";

/** What the holder asks of a shard (the Ledger's methods of the same names). */
export interface ShardCalls {
  seal(version: number): Promise<number>;
  events(after: number, waitMs: number, viewer: Viewer): Promise<EventBatch>;
  stranded(index: number, newer: number[]): Promise<number>;
}

export interface MapHolder {
  storage: DurableObjectStorage;
  /** A stub for shard n of the tenant (a fresh one per try). */
  shard(n: number): ShardCalls;
  now(): number;
}

export type ChangeOutcome = { ok: true; map: ShardMap } | { ok: false; error: string };

export interface DropOutcome {
  map: ShardMap;
  dropped: number[];
  /** The oldest version still live and how many of its records no newer version would find. */
  blocked?: { version: number; stranded: number };
}

/** The stored map; the first read adopts `initial` (LEDGER_SHARDS) as version 1. */
function stored(holder: MapHolder, initial: number): ShardMap {
  const kv = holder.storage.kv;
  const map = kv.get<ShardMap>(MAP_KEY);
  if (map) return map;
  const first = firstMap(initial, holder.now());
  kv.put(MAP_KEY, first);
  return first;
}

/** The published map, after finishing a change left pending (its request may have died midway). */
export async function publishedMap(holder: MapHolder, initial: number): Promise<ShardMap> {
  const map = stored(holder, initial);
  return map.pending ? finish(holder, map) : map;
}

/** Changes the shard count: seals the live shards, then publishes the new version. */
export async function changeShards(holder: MapHolder, shards: unknown, initial: number): Promise<ChangeOutcome> {
  const map = await publishedMap(holder, initial);
  const error = changeError(map, shards);
  if (error) return { ok: false, error };
  const pending = { ...map, pending: { version: currentOf(map).version + 1, shards: shards as number } };
  holder.storage.kv.put(MAP_KEY, pending);
  return { ok: true, map: await finish(holder, pending) };
}

async function finish(holder: MapHolder, map: ShardMap): Promise<ShardMap> {
  const next = map.pending!;
  const span = spanOf(map);
  await Promise.all(
    Array.from({ length: span }, (_, n) =>
      callDurable(
        () => holder.shard(n),
        (shard) => shard.seal(next.version),
      ),
    ),
  );
  // Shards no live version had: streams resumed from older ids read them from here.
  const added = Array.from({ length: Math.max(0, next.shards - span) }, (_, i) => span + i);
  const starts = await Promise.all(
    added.map((n) =>
      callDurable(
        () => holder.shard(n),
        (shard) => shard.events(-1, 0, null),
      ),
    ),
  );
  const eventStart = Object.fromEntries(added.map((n, i) => [String(n), starts[i]!.last]));
  // Another request may have finished it meanwhile: publish once.
  const now = stored(holder, currentOf(map).shards);
  if (now.pending?.version !== next.version) return now;
  const published: ShardMap = {
    versions: [{ ...next, since: holder.now(), eventStart }, ...map.versions],
    origin: map.origin,
    revision: map.revision + 1,
  };
  holder.storage.kv.put(MAP_KEY, published);
  return published;
}

/**
 * Drops the oldest live versions whose shards hold no record that a newer version would not find
 * (their records were pruned by retention), oldest first; stops at the first that still has some.
 */
export async function dropOldVersions(holder: MapHolder, initial: number): Promise<DropOutcome> {
  let map = await publishedMap(holder, initial);
  const dropped: number[] = [];
  while (map.versions.length > 1) {
    const oldest = map.versions.at(-1)!;
    const newer = map.versions.slice(0, -1).map((v) => v.shards);
    const counts = await Promise.all(
      Array.from({ length: oldest.shards }, (_, n) =>
        callDurable(
          () => holder.shard(n),
          (shard) => shard.stranded(n, newer),
        ),
      ),
    );
    const stranded = counts.reduce((a, b) => a + b, 0);
    if (stranded > 0) return { map, dropped, blocked: { version: oldest.version, stranded } };
    // Re-read: a change may have been published while the shards answered.
    const latest = stored(holder, initial);
    if (latest.pending || latest.versions.at(-1)?.version !== oldest.version) return { map: latest, dropped };
    map = { ...latest, versions: latest.versions.slice(0, -1), revision: latest.revision + 1 };
    holder.storage.kv.put(MAP_KEY, map);
    dropped.push(oldest.version);
  }
  return { map, dropped };
}
