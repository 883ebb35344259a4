import type { ActiveKey, KeyInfo, KeyInput } from "./types";

/** A Keys object's RPC methods, as callers use them. */
export interface KeysStub {
  list(): Promise<KeyInfo[]>;
  active(): Promise<ActiveKey[]>;
  create(id: string, hash: string, input: KeyInput): Promise<KeyInfo | "name_taken">;
  rotate(id: string, hash: string, graceMs: number): Promise<KeyInfo | "not_found">;
  revoke(id: string): Promise<KeyInfo | "not_found">;
  touch(uses: [string, number][]): Promise<void>;
}

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
