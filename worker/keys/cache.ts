import type { Scope } from "../tenant/config";
import { callDurable } from "../durable/call";
import type { KeysAddress } from "./address";
import type { ActiveKey } from "./types";

/**
 * How long an isolate trusts its copy of the tenant's runtime keys. A key created, rotated or revoked
 * in another isolate is seen here within this bound (plus one round trip); in the isolate that made
 * the change, at once. Past it, the next request reads the set afresh before it checks a key.
 */
export const KEY_SET_TTL_MS = 5_000;
/** Each isolate sends a key's last-use time at most this often (batched, under waitUntil). */
export const LAST_USED_FLUSH_MS = 30_000;

/** An active key as a check compares it: its hashes as bytes, its rules as sets. */
export interface RuntimeKey {
  key: ActiveKey;
  hash: Uint8Array;
  previous?: Uint8Array;
  scopes: ReadonlySet<Scope>;
  tools?: ReadonlySet<string>;
  /** What MCP sessions opened with it are bound to: its id, so a rotation keeps them. */
  binding: Uint8Array;
}

const encoder = new TextEncoder();

export function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** SHA-256 of a label, as the 32 bytes sessions and grants are bound to. */
export async function bindingOf(label: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(label)));
}

async function toRuntime(key: ActiveKey): Promise<RuntimeKey> {
  return {
    key,
    hash: hexBytes(key.hash),
    ...(key.previousHash ? { previous: hexBytes(key.previousHash) } : {}),
    scopes: new Set(key.scopes),
    ...(key.tools ? { tools: new Set(key.tools) } : {}),
    binding: await bindingOf(`toolgate/key/${key.id}`),
  };
}

interface Cached {
  at: number;
  keys: RuntimeKey[];
}

const sets = new Map<string, Cached>();

/**
 * The tenant's active runtime keys, from this isolate's copy while it is younger than KEY_SET_TTL_MS.
 * No request waits on another's read (workerd refuses to settle one request's promise from another:
 * docs/ledger.md, "Group commit"), so a stale copy costs each request one RPC until one of them has
 * replaced it.
 */
export async function runtimeKeys(address: KeysAddress, now = Date.now()): Promise<RuntimeKey[]> {
  const cached = sets.get(address.tenant);
  if (cached && now - cached.at < KEY_SET_TTL_MS) return cached.keys;
  const active = await callDurable(
    () => address.object(),
    (keys) => keys.active(),
  );
  const keys = await Promise.all(active.map(toRuntime));
  sets.set(address.tenant, { at: now, keys });
  return keys;
}

/** After a change made here: the next check reads the set afresh. */
export function forgetKeys(tenant: string): void {
  sets.delete(tenant);
}

const sent = new Map<string, number>();
const pending = new Map<string, [string, number]>();

/**
 * Notes a use of a runtime key. A key not reported by this isolate for LAST_USED_FLUSH_MS goes to its
 * object now, with every other use noted since (one RPC, under waitUntil); other uses wait for that,
 * so the stored time trails the real last use by at most LAST_USED_FLUSH_MS per isolate.
 */
export function noteKeyUse(
  address: KeysAddress,
  id: string,
  waitUntil: ((promise: Promise<unknown>) => void) | undefined,
  now = Date.now(),
): void {
  const slot = `${address.tenant}\n${id}`;
  pending.set(slot, [id, now]);
  if (now - (sent.get(slot) ?? 0) < LAST_USED_FLUSH_MS || !waitUntil) return;
  const uses: [string, number][] = [];
  for (const [name, use] of pending) {
    if (!name.startsWith(`${address.tenant}\n`)) continue;
    uses.push(use);
    sent.set(name, now);
    pending.delete(name);
  }
  waitUntil(
    address
      .object()
      .touch(uses)
      .catch(() => undefined),
  ); // a lost update only makes lastUsedAt older
}
