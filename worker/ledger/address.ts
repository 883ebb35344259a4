import type { Ledger } from "./ledger";
import { callDurable } from "../durable/call";
import type { MethodList, PlainStub } from "../durable/stub";
import { isolateMaps, type MapCache } from "./map-cache";
import {
  currentOf,
  MAX_SHARDS,
  olderPlaces,
  shardName,
  shardOf,
  spanOf,
  type ShardGuard,
  type ShardMap,
} from "./shard-map";

export { shardName, shardOf } from "./shard-map";

/** Shards per tenant when LEDGER_SHARDS is not set. */
export const DEFAULT_SHARDS = 4;

export type LedgerNamespace = DurableObjectNamespace<Ledger>;

/** Every RPC method of the Ledger, which a located stub forwards (a missing or stale name does not compile). */
const RPC_METHODS = {
  begin: true,
  commit: true,
  writeMany: true,
  complete: true,
  record: true,
  watch: true,
  confirmStart: true,
  progress: true,
  get: true,
  list: true,
  metrics: true,
  result: true,
  decide: true,
  answer: true,
  cancel: true,
  events: true,
  recentEvents: true,
  publish: true,
  issueToken: true,
  checkToken: true,
  mcpSession: true,
  setMcpSessionLevel: true,
  endMcpSession: true,
  cancelCallsWithPrefix: true,
  secret: true,
  holds: true,
  seal: true,
  stranded: true,
  shardMap: true,
  changeShards: true,
  dropShardVersions: true,
  openAsks: true,
  answerAsk: true,
  awaitAsks: true,
  cancelAsks: true,
  closeAsks: true,
  startMetricsExport: true,
} as const satisfies MethodList<Ledger>;

/** A shard's stub typed as the Ledger's plain methods (worker/durable/stub.ts). */
export type LedgerStub = PlainStub<Ledger>;

/**
 * LEDGER_SHARDS: how many ledger objects share a tenant's calls when it starts. The first use of the
 * ledger stores it as version 1 of the tenant's shard map; later changes go through the shard map
 * (PUT /v1/ledger/shards), never through this variable.
 */
export function shardCount(env: object): number {
  const n = Number((env as { LEDGER_SHARDS?: unknown }).LEDGER_SHARDS ?? DEFAULT_SHARDS);
  return Number.isInteger(n) && n >= 1 && n <= MAX_SHARDS ? n : DEFAULT_SHARDS;
}

/** Where a call id lives now: the shard holding it, else its home under the newest map version. */
export interface Placement {
  index: number;
  name: string;
  stub: () => LedgerStub;
  /** What a write that may insert the id carries: the shard refuses it if the map is stale or the id not its own. */
  at: ShardGuard;
}

/** Where a tenant's ledger lives: its shards, by number or by the call id they hold. Stubs are made per call. */
export interface LedgerAddress {
  readonly tenant: string;
  /** The tenant's shard map (cached in the isolate, refreshed every MAP_TTL_MS). */
  map(): Promise<ShardMap>;
  /** The shard map if this isolate has it, without waiting for it (a stale one is refreshed behind). */
  known(): ShardMap | undefined;
  /** The map at version `atLeast` or newer (a sealed shard named it), and forgets where `callId` was found. */
  learn(atLeast: number, callId?: string): Promise<ShardMap>;
  /** Keeps a map this isolate was answered by a change it made (the others learn it within MAP_TTL_MS). */
  adopt(map: ShardMap): void;
  /** Where the call id is held, else where a new one goes: one read per older live map version, remembered. */
  place(callId: string): Promise<Placement>;
  /** The shard holding a call id (placed per method call): an id never moves once recorded. */
  for(callId: string): LedgerStub;
  /** The shard of a key that is not a call id (an MCP session, a secret): fixed by version 1 of the map. */
  fixed(key: string): LedgerStub;
  shard(n: number): LedgerStub;
  /** A stub maker per shard that may hold records or events (the widest live version), in order. */
  all(): Promise<(() => LedgerStub)[]>;
  /** The shard's object name: `<tenant>/ledger/<n>`. */
  name(n: number): string;
  /** The object keeping the tenant's shard map (map-holder.ts). */
  holder(): LedgerStub;
}

/**
 * Object ids by name, per namespace: a name's id never changes, and idFromName hashes the name
 * each time. Stubs stay per request.
 */
const ids = new WeakMap<LedgerNamespace, Map<string, DurableObjectId>>();
const IDS_KEPT = 1_024;

function idOf(ns: LedgerNamespace, name: string): DurableObjectId {
  let known = ids.get(ns);
  if (!known) ids.set(ns, (known = new Map()));
  let id = known.get(name);
  if (id === undefined) {
    if (known.size >= IDS_KEPT) known.clear();
    known.set(name, (id = ns.idFromName(name)));
  }
  return id;
}

/** The tenant's ledger in this environment (env.LEDGER, env.LEDGER_SHARDS); `maps`: this isolate's cache. */
export function tenantLedger(
  env: { LEDGER: LedgerNamespace; LEDGER_SHARDS?: unknown },
  tenant: string,
  maps: MapCache = isolateMaps,
): LedgerAddress {
  const ns = env.LEDGER;
  const initial = shardCount(env);
  const stubOf = (name: string) => ns.get(idOf(ns, name)) as unknown as LedgerStub;
  const shard = (n: number) => stubOf(shardName(tenant, n));
  const holder = () => stubOf(`${tenant}/ledger/map`);
  const fetch = () => callDurable(holder, (map) => map.shardMap(tenant, initial));
  const map = () => maps.get(tenant, fetch);

  /** The first older shard that holds the id (newest version first), else the id's home. */
  async function holderOf(current: ShardMap, callId: string): Promise<number> {
    const home = shardOf(callId, currentOf(current).shards);
    const older = olderPlaces(current, callId);
    if (older.length === 0) return home;
    const version = currentOf(current).version;
    const known = maps.place(tenant, version, callId);
    if (known !== undefined) return known;
    const held = await Promise.all(
      older.map((n) =>
        callDurable(
          () => shard(n),
          (stub) => stub.holds(callId),
        ),
      ),
    );
    const index = older[held.indexOf(true)] ?? home;
    maps.notePlace(tenant, version, callId, index);
    return index;
  }

  async function place(callId: string): Promise<Placement> {
    const current = await map();
    const index = await holderOf(current, callId);
    const { version, shards } = currentOf(current);
    return { index, name: shardName(tenant, index), stub: () => shard(index), at: { version, shards, index } };
  }

  /** A stub whose every method first finds its shard. */
  function located(find: () => Promise<LedgerStub>): LedgerStub {
    const stub: Record<string, (...args: never[]) => Promise<unknown>> = {};
    for (const method of Object.keys(RPC_METHODS) as (keyof typeof RPC_METHODS)[]) {
      stub[method] = async (...args) => ((await find())[method] as (...a: never[]) => Promise<unknown>)(...args);
    }
    return stub as unknown as LedgerStub;
  }

  return {
    tenant,
    map,
    known: () => maps.peek(tenant, fetch),
    learn(atLeast, callId) {
      if (callId !== undefined) maps.forget(tenant, callId);
      return maps.learn(tenant, atLeast, fetch);
    },
    adopt: (known) => void maps.adopt(tenant, known),
    place,
    for(callId) {
      // One live version, known here: the id's home, with no lookup.
      const known = maps.peek(tenant, fetch);
      if (known?.versions.length === 1) return shard(shardOf(callId, currentOf(known).shards));
      return located(async () => (await place(callId)).stub());
    },
    fixed(key) {
      const known = maps.peek(tenant, fetch);
      return known ? shard(shardOf(key, known.origin)) : located(async () => shard(shardOf(key, (await map()).origin)));
    },
    shard,
    all: async () => Array.from({ length: spanOf(await map()) }, (_, n) => () => shard(n)),
    name: (n) => shardName(tenant, n),
    holder,
  };
}
