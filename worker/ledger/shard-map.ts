/**
 * A tenant's versioned shard map: which ledger shards hold its calls. Shard n is always the object
 * `<tenant>/ledger/<n>` whatever the version, so a version only says how many shards new ids hash over.
 * The newest version places new ids; the older ones stay live (their shards may hold earlier ids) until
 * dropped. Pure data and arithmetic: the map holder (map-holder.ts) keeps it, isolates cache it.
 */

/** Most shards a version may have. */
export const MAX_SHARDS = 256;
/** Most versions live at once: each older one costs an uncached lookup one extra read. */
export const MAX_LIVE_VERSIONS = 4;

export interface ShardVersion {
  version: number;
  shards: number;
  /** When it was published (ms). */
  since: number;
  /**
   * Event positions of the shards it added, when published: a stream resumed from an id that does not
   * know a shard reads it from here (events before it belong to no live version).
   */
  eventStart: Record<string, number>;
}

export interface ShardMap {
  /** Live versions, newest (the one placing new ids) first. */
  versions: ShardVersion[];
  /** The shard count of version 1: keys that are not call ids (MCP sessions, secrets) stay on it. */
  origin: number;
  /** Counts every stored change (a version published or dropped): caches keep the highest. */
  revision: number;
  /** A change under way: its old shards are being sealed, then it is published. */
  pending?: { version: number; shards: number };
}

/** What a write that may insert a new row carries: the map it was placed by and the shard it was sent to. */
export interface ShardGuard {
  version: number;
  shards: number;
  index: number;
}

/** A shard's refusal to insert an id: it is sealed below `version`, or the id is not its under the writer's map. */
export type Moved = { kind: "moved"; version: number };

/** Shard n of a tenant's ledger, under every version of its map. */
export const shardName = (tenant: string, n: number) => `${tenant}/ledger/${n}`;

/** FNV-1a of the call id: cheap, synchronous and evenly spread for ids of any shape. */
export function shardOf(callId: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < callId.length; i++) {
    hash ^= callId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

export function firstMap(shards: number, now: number): ShardMap {
  return { versions: [{ version: 1, shards, since: now, eventStart: {} }], origin: shards, revision: 1 };
}

export const currentOf = (map: ShardMap): ShardVersion => map.versions[0]!;

/** How many shard objects may hold records or events: the widest live version. */
export function spanOf(map: ShardMap): number {
  return Math.max(...map.versions.map((v) => v.shards));
}

/**
 * The shards an id may be held on besides its home under the newest version, newest version first,
 * each once: where a claim or a read looks before the home shard.
 */
export function olderPlaces(map: ShardMap, callId: string): number[] {
  const home = shardOf(callId, currentOf(map).shards);
  const places: number[] = [];
  for (const v of map.versions.slice(1)) {
    const n = shardOf(callId, v.shards);
    if (n !== home && !places.includes(n)) places.push(n);
  }
  return places;
}

/** Why a change to `shards` cannot be made, or undefined. */
export function changeError(map: ShardMap, shards: unknown): string | undefined {
  if (typeof shards !== "number" || !Number.isInteger(shards) || shards < 1 || shards > MAX_SHARDS) {
    return `shards must be an integer from 1 to ${MAX_SHARDS}.`;
  }
  if (shards === currentOf(map).shards) return `The ledger already has ${shards} shards.`;
  if (map.versions.length >= MAX_LIVE_VERSIONS) {
    return (
      `${map.versions.length} shard map versions are live (at most ${MAX_LIVE_VERSIONS}): ` +
      `drop the old ones first (POST /v1/ledger/shards/drop).`
    );
  }
  return undefined;
}

/**
 * A shard's check before it inserts a new row for `callId`: refused when it is sealed for the writer's
 * map (the writer learns the newer one and places the id again), or when the id's home under that map
 * is another shard (it was sent here only because an older version held it, and it is held no more).
 * A write without a guard was placed by version 1.
 */
export function insertRefusal(sealedBelow: number, callId: string, at: ShardGuard | undefined): Moved | undefined {
  const version = at?.version ?? 1;
  if (version < sealedBelow) return { kind: "moved", version: sealedBelow };
  if (at && shardOf(callId, at.shards) !== at.index) return { kind: "moved", version };
  return undefined;
}

/** Where a stream that did not know shard n reads it from: its event position when a version added it. */
export function eventStartOf(map: ShardMap, n: number): number | undefined {
  return map.versions.find((v) => v.eventStart[String(n)] !== undefined)?.eventStart[String(n)];
}
