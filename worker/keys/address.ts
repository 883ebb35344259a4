import type { PlainStub } from "../durable/stub";
import type { Keys } from "./keys";

/** A Keys object's RPC methods, as callers use them: derived from the class, so they cannot drift from it. */
export type KeysStub = PlainStub<Keys>;

/** The Keys Durable Object namespace as used here (structural: env.KEYS satisfies it). */
export interface KeysNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): KeysStub;
}

/** Where a tenant's runtime keys live: one Keys object per tenant. */
export interface KeysAddress {
  readonly tenant: string;
  /** A fresh stub of the tenant's object. */
  object(): KeysStub;
}

/** The tenant's keys in this environment (env.KEYS). */
export function tenantKeys(env: { KEYS: KeysNamespace }, tenant: string): KeysAddress {
  const ns = env.KEYS;
  return { tenant, object: () => ns.get(ns.idFromName(tenant)) };
}
