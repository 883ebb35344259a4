import type { ShardMap } from "./shard-map";

/**
 * An isolate's copy of each tenant's shard map, and where the ids it looked up while an older version
 * is live were found. Values only, never promises: one request's I/O must not settle another's.
 */

/** How old a cached map may get before a request refreshes it (in the background, using it meanwhile). */
export const MAP_TTL_MS = 10_000;
/** A refresh whose request died is tried again by the next request after this long. */
const REFRESH_STALL_MS = 5_000;
/** Looked-up ids kept per isolate (all tenants); the oldest go first. */
const PLACES_MAX = 10_000;

export interface MapCache {
  /** The tenant's map: cached, or fetched now (a stale one answers at once and is refreshed behind it). */
  get(tenant: string, fetch: () => Promise<ShardMap>): Promise<ShardMap>;
  /** The cached map if any, at once (a stale one is refreshed behind it). */
  peek(tenant: string, fetch: () => Promise<ShardMap>): ShardMap | undefined;
  /** The map at version `atLeast` or newer: fetched now unless the cached one is. */
  learn(tenant: string, atLeast: number, fetch: () => Promise<ShardMap>): Promise<ShardMap>;
  /** A map this isolate was just answered (by a change it made): kept unless the cached one is newer. */
  adopt(tenant: string, map: ShardMap): ShardMap;
  /** Which shard held an id under a map version (an older shard refuses new ids, so either answer holds). */
  place(tenant: string, version: number, callId: string): number | undefined;
  notePlace(tenant: string, version: number, callId: string, index: number): void;
  /** Forgets where an id was found (its row went: retention). */
  forget(tenant: string, callId: string): void;
}

interface Cached {
  map: ShardMap;
  fetchedAt: number;
  refreshingSince?: number;
}

export function createMapCache(ttlMs = MAP_TTL_MS): MapCache {
  const maps = new Map<string, Cached>();
  const places = new Map<string, number>();
  const placeKey = (tenant: string, version: number, callId: string) => `${tenant}\n${version}\n${callId}`;

  async function fetchNow(tenant: string, fetch: () => Promise<ShardMap>): Promise<ShardMap> {
    return adopt(tenant, await fetch());
  }

  function adopt(tenant: string, map: ShardMap): ShardMap {
    const cached = maps.get(tenant);
    // Maps only move forward: an answer that raced a newer one is dropped.
    if (!cached || map.revision >= cached.map.revision) maps.set(tenant, { map, fetchedAt: Date.now() });
    return maps.get(tenant)!.map;
  }

  function peek(tenant: string, fetch: () => Promise<ShardMap>): ShardMap | undefined {
    const cached = maps.get(tenant);
    if (!cached) return undefined;
    const now = Date.now();
    const refreshing = cached.refreshingSince !== undefined && now - cached.refreshingSince < REFRESH_STALL_MS;
    if (now - cached.fetchedAt > ttlMs && !refreshing) {
      cached.refreshingSince = now;
      void fetchNow(tenant, fetch)
        .catch(() => undefined)
        .finally(() => (cached.refreshingSince = undefined));
    }
    return cached.map;
  }

  return {
    get: async (tenant, fetch) => peek(tenant, fetch) ?? fetchNow(tenant, fetch),
    peek,
    adopt,
    async learn(tenant, atLeast, fetch) {
      const cached = maps.get(tenant);
      return cached && version(cached.map) >= atLeast ? cached.map : fetchNow(tenant, fetch);
    },
    place: (tenant, v, callId) => places.get(placeKey(tenant, v, callId)),
    notePlace(tenant, v, callId, index) {
      if (places.size >= PLACES_MAX) places.delete(places.keys().next().value!);
      places.set(placeKey(tenant, v, callId), index);
    },
    forget(tenant, callId) {
      const cached = maps.get(tenant);
      if (cached) places.delete(placeKey(tenant, version(cached.map), callId));
    },
  };
}

const version = (map: ShardMap) => map.versions[0]!.version;

/** This isolate's cache (tests make their own to play an isolate that has not learned a change). */
export const isolateMaps = createMapCache();
