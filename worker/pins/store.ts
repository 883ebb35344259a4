import type { PinStore } from "../../src/adapters/mcp";
import type { Denial, Pin, PinEntry, PinState } from "./adapter-pins";
import type { PinsAddress } from "./address";

/** How long this isolate trusts its copy of the pins; approvals made here update it at once. */
const PIN_TTL_MS = 10_000;

export interface TenantPins extends PinStore {
  all(): Promise<Pin[]>;
  denials(): Promise<Denial[]>;
  approve(entries: PinEntry[], approvedBy: string): Promise<Pin[]>;
  deny(entries: PinEntry[], deniedBy: string): Promise<Denial[]>;
  /** The approved definitions of these tools (read afresh: for a review, not for calls). */
  approvedDefinitions(tools: string[]): Promise<Record<string, unknown>>;
}

interface Cached {
  at: number;
  byTool: Map<string, Pin>;
  denied: Map<string, Denial>;
}

/**
 * The tenant's approved (and denied) definition hashes, read from its AdapterPins object and cached
 * per isolate, so a call to a pinned MCP tool costs no extra round trip. Another isolate's approval
 * or denial shows here within PIN_TTL_MS.
 */
export function createPinStore(pins: PinsAddress, now: () => number = Date.now): TenantPins {
  let cache: Cached | undefined;
  const remember = (state: PinState) => {
    cache = {
      at: now(),
      byTool: new Map(state.pins.map((pin) => [pin.tool, pin])),
      denied: new Map(state.denials.map((d) => [d.tool, d])),
    };
    return cache;
  };

  // No shared in-flight promise: workerd runs a promise's continuations in the request that settled
  // it, so one request must not wait on another's RPC. A stale cache costs one RPC per request.
  async function current(): Promise<Cached> {
    if (cache && now() - cache.at < PIN_TTL_MS) return cache;
    return remember(await pins.object().state());
  }

  return {
    async get(tool) {
      return (await current()).byTool.get(tool)?.hash;
    },
    async denied(tool) {
      return (await current()).denied.get(tool)?.hash;
    },
    async all() {
      return [...(await current()).byTool.values()];
    },
    async denials() {
      return [...(await current()).denied.values()];
    },
    async approve(entries, approvedBy) {
      await pins.object().approve(entries, approvedBy);
      return [...remember(await pins.object().state()).byTool.values()];
    },
    async deny(entries, deniedBy) {
      return [...remember(await pins.object().deny(entries, deniedBy)).denied.values()];
    },
    approvedDefinitions: (tools) => pins.object().approvedDefinitions(tools),
  };
}
