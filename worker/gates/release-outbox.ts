/**
 * Releases waiting to ride on the next acquire of the same gate from this isolate, so a call that
 * finished frees its slot without a round trip of its own: the Gate object applies them, then the
 * acquire, in one transaction. Holds call ids only (no stubs, no promises), so a request may carry
 * another request's releases; the request that deferred a release sends it itself if it is still here
 * when its fold window ends. A release lost with its isolate is reclaimed by the slot's lease.
 */

/** Most releases one acquire carries; the rest wait for the next one or their window. */
export const MAX_FOLDED_RELEASES = 64;

export interface ReleaseOutbox {
  add(gate: string, callId: string): void;
  /** Removes and returns up to MAX_FOLDED_RELEASES of the gate's pending releases (possibly none). */
  take(gate: string): string[];
  /** Removes one release; whether it was still pending (no acquire carried it). */
  takeOne(gate: string, callId: string): boolean;
  /**
   * Marks an acquire of the gate from this isolate as under way until the returned function is
   * called: a release meanwhile goes at once, since that caller may be waiting for it.
   */
  acquiring(gate: string): () => void;
  /** Whether an acquire of the gate from this isolate is under way. */
  isAcquiring(gate: string): boolean;
}

export function createReleaseOutbox(): ReleaseOutbox {
  const pending = new Map<string, Set<string>>();
  const underWay = new Map<string, number>();
  return {
    add(gate, callId) {
      const ids = pending.get(gate);
      if (ids) ids.add(callId);
      else pending.set(gate, new Set([callId]));
    },
    take(gate) {
      const ids = pending.get(gate);
      if (!ids) return [];
      const taken: string[] = [];
      for (const id of ids) {
        if (taken.length === MAX_FOLDED_RELEASES) break;
        taken.push(id);
        ids.delete(id);
      }
      if (ids.size === 0) pending.delete(gate);
      return taken;
    },
    takeOne(gate, callId) {
      const ids = pending.get(gate);
      if (!ids?.delete(callId)) return false;
      if (ids.size === 0) pending.delete(gate);
      return true;
    },
    acquiring(gate) {
      underWay.set(gate, (underWay.get(gate) ?? 0) + 1);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        const left = underWay.get(gate)! - 1;
        if (left === 0) underWay.delete(gate);
        else underWay.set(gate, left);
      };
    },
    isAcquiring: (gate) => underWay.has(gate),
  };
}

/** This isolate's outbox, shared by its requests (module state lives as long as the isolate). */
export const isolateReleases = createReleaseOutbox();
