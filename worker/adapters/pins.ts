import type { PinStore } from "../../src/adapters/mcp";

export interface Pin {
  tool: string;
  server: string;
  hash: string;
  approvedBy: string;
  approvedAt: number;
}

type PinEntry = { tool: string; server: string; hash: string; definition: unknown };

/** The AdapterPins Durable Object namespace as used here (structural: env.ADAPTER_PINS satisfies it). */
export interface PinsNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): { all(): Promise<Pin[]>; approve(entries: PinEntry[], approvedBy: string): Promise<Pin[]> };
}

/** How long this isolate trusts its copy of the pins; approvals made here update it at once. */
const PIN_TTL_MS = 10_000;

export interface TenantPins extends PinStore {
  all(): Promise<Pin[]>;
  approve(entries: PinEntry[], approvedBy: string): Promise<Pin[]>;
}

/**
 * The tenant's approved definition hashes, read from its AdapterPins object and cached per isolate,
 * so a call to a pinned MCP tool costs no extra round trip. Another isolate's approval shows here
 * within PIN_TTL_MS.
 */
export function createPinStore(namespace: PinsNamespace, tenant: string, now: () => number = Date.now): TenantPins {
  const id = namespace.idFromName(tenant);
  let cache: { at: number; byTool: Map<string, Pin> } | undefined;
  const remember = (pins: Pin[]) => {
    cache = { at: now(), byTool: new Map(pins.map((pin) => [pin.tool, pin])) };
    return cache.byTool;
  };

  // No shared in-flight promise: workerd runs a promise's continuations in the request that settled
  // it, so one request must not wait on another's RPC. A stale cache costs one RPC per request.
  async function pins(): Promise<Map<string, Pin>> {
    if (cache && now() - cache.at < PIN_TTL_MS) return cache.byTool;
    return remember(await namespace.get(id).all());
  }

  return {
    async get(tool) {
      return (await pins()).get(tool)?.hash;
    },
    async all() {
      return [...(await pins()).values()];
    },
    async approve(entries, approvedBy) {
      return [...remember(await namespace.get(id).approve(entries, approvedBy)).values()];
    },
  };
}
