import type { Limiter, SlotGrant, SlotRequest } from "./limiter";
import type { LocalLimiter } from "./local-limiter";

let local: LocalLimiter | undefined;
let loading: Promise<LocalLimiter> | undefined;

/** The in-process limiter, loaded once: its module (and the gate queue's) only when a gate is first used. */
function loadLocal(): Promise<LocalLimiter> {
  return (loading ??= import("./local-limiter").then((module) => (local ??= module.createLocalLimiter())));
}

/**
 * One in-process limiter shared by every call that brings none, so policy.concurrency holds by default.
 * Apps whose tools set no concurrency never acquire, so they never load (nor bundle up front) the queue.
 */
export const processLimiter: Limiter = {
  acquire(request: SlotRequest): Promise<SlotGrant> {
    return local !== undefined ? local.acquire(request) : loadLocal().then((limiter) => limiter.acquire(request));
  },
};
