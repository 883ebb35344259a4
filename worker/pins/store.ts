import type { PinStore } from "../../src/adapters/mcp";
import type { Pin, PinEntry } from "./adapter-pins";
import type { PinsAddress } from "./address";

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
export function createPinStore(pins: PinsAddress, now: () => number = Date.now): TenantPins {
  let cache: { at: number; byTool: Map<string, Pin> } | undefined;
  const remember = (list: Pin[]) => {
    cache = { at: now(), byTool: new Map(list.map((pin) => [pin.tool, pin])) };
    return cache.byTool;
  };

  // No shared in-flight promise: workerd runs a promise's continuations in the request that settled
  // it, so one request must not wait on another's RPC. A stale cache costs one RPC per request.
  async function current(): Promise<Map<string, Pin>> {
    if (cache && now() - cache.at < PIN_TTL_MS) return cache.byTool;
    return remember(await pins.object().all());
  }

  return {
    async get(tool) {
      return (await current()).get(tool)?.hash;
    },
    async all() {
      return [...(await current()).values()];
    },
    async approve(entries, approvedBy) {
      return [...remember(await pins.object().approve(entries, approvedBy)).values()];
    },
  };
}
