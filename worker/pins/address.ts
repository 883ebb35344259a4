import type { Pin, PinEntry, PinState } from "./adapter-pins";

/** An AdapterPins object's RPC methods, as callers use them. */
export interface PinsStub {
  all(): Promise<Pin[]>;
  state(): Promise<PinState>;
  approvedDefinitions(tools: string[]): Promise<Record<string, unknown>>;
  approve(entries: PinEntry[], approvedBy: string): Promise<Pin[]>;
  deny(entries: PinEntry[], deniedBy: string): Promise<PinState>;
}

/** The AdapterPins Durable Object namespace as used here (structural: env.ADAPTER_PINS satisfies it). */
export interface PinsNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): PinsStub;
}

/** Where a tenant's pins live: one AdapterPins object per tenant. */
export interface PinsAddress {
  readonly tenant: string;
  /** A fresh stub of the tenant's object. */
  object(): PinsStub;
}

/** The tenant's pins in this environment (env.ADAPTER_PINS). */
export function tenantPins(env: { ADAPTER_PINS: PinsNamespace }, tenant: string): PinsAddress {
  const ns = env.ADAPTER_PINS;
  return { tenant, object: () => ns.get(ns.idFromName(tenant)) };
}
