import type { Ledger } from "./ledger";

/** Shards per tenant when LEDGER_SHARDS is not set. */
export const DEFAULT_SHARDS = 4;
const MAX_SHARDS = 256;

export type LedgerNamespace = DurableObjectNamespace<Ledger>;

type Promised<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never };
type RpcMethods = "begin" | "commit" | "writeMany" | "complete" | "record" | "watch" | "confirmStart" | "progress" | "get" | "list" | "result" | "decide" | "answer" | "cancel" | "events" | "publish" | "issueToken" | "checkToken" | "mcpSession" | "setMcpSessionLevel" | "endMcpSession" | "cancelCallsWithPrefix" | "secret";
/**
 * A shard's stub typed as its plain methods: the generated RPC types of these unions are too deep for
 * tsc, and every value crossing here is plain JSON-like data that structured clone keeps as is.
 */
export type LedgerStub = Promised<Pick<Ledger, RpcMethods>>;

/**
 * LEDGER_SHARDS: how many ledger objects share a tenant's calls. Choose it at deploy time: a call id
 * always maps to hash(id) mod N, so changing N moves ids to other shards (their earlier records stay
 * readable only while the old shards are still listed).
 */
export function shardCount(env: object): number {
  const n = Number((env as { LEDGER_SHARDS?: unknown }).LEDGER_SHARDS ?? DEFAULT_SHARDS);
  return Number.isInteger(n) && n >= 1 && n <= MAX_SHARDS ? n : DEFAULT_SHARDS;
}

/** FNV-1a of the call id: cheap, synchronous and evenly spread for ids of any shape. */
export function shardOf(callId: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < callId.length; i++) {
    hash ^= callId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/** Where a tenant's ledger lives: its shards, by number or by the call id they hold. Stubs are made per call. */
export interface LedgerAddress {
  readonly tenant: string;
  /** How many shards share the tenant's calls (LEDGER_SHARDS). */
  readonly shards: number;
  /** The shard holding a call id: idempotency stays exact because an id never changes shard. */
  for(callId: string): LedgerStub;
  shard(n: number): LedgerStub;
  /** The number of the shard holding a call id. */
  shardOf(callId: string): number;
  /** A stub maker per shard, in order (callDurable makes a fresh stub per attempt). */
  all(): (() => LedgerStub)[];
  /** The shard's object name: `<tenant>/ledger/<n>`. */
  name(n: number): string;
}

/** The tenant's ledger in this environment (env.LEDGER, env.LEDGER_SHARDS). */
export function tenantLedger(env: { LEDGER: LedgerNamespace; LEDGER_SHARDS?: unknown }, tenant: string): LedgerAddress {
  const ns = env.LEDGER;
  const shards = shardCount(env);
  const name = (n: number) => `${tenant}/ledger/${n}`;
  const shard = (n: number) => ns.get(ns.idFromName(name(n))) as unknown as LedgerStub;
  return {
    tenant,
    shards,
    for: (callId) => shard(shardOf(callId, shards)),
    shard,
    shardOf: (callId) => shardOf(callId, shards),
    all: () => Array.from({ length: shards }, (_, n) => () => shard(n)),
    name,
  };
}
