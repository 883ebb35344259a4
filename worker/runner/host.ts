import type { CallRunner, DetachedCall } from "../../src/runner";
import { callDurable } from "../durable/call";
import { DEFAULT_LEASE_MS } from "../ledger/journal";
import { tenantRunners, type RunJob, type RunnerNamespace } from "./address";

/**
 * The Worker's CallRunner: a detached call goes to its own Runner object, whose alarm runs it beyond
 * the request that made it. Starting is one RPC; the call's record (the ledger) tells the rest.
 */
export function createCallRunner(
  env: { RUNNERS?: RunnerNamespace },
  tenant: string,
  config?: string,
  origin?: string,
): CallRunner | undefined {
  if (!env.RUNNERS) return undefined;
  const runners = tenantRunners({ RUNNERS: env.RUNNERS }, tenant);
  const jobOf = (call: DetachedCall): RunJob => ({
    ...call,
    tenant,
    ...(config === undefined ? {} : { config }),
    ...(origin === undefined ? {} : { origin }),
  });
  return {
    async detach(call) {
      // Not repeated blindly: start is idempotent per call id, so a retryable failure may be sent again.
      await callDurable(
        () => runners.for(call.callId),
        (runner) => runner.start(jobOf(call)),
      );
    },
    async standby(call) {
      // The ledger marks a call whose request died unknown once its lease lapses; the runner looks then.
      await callDurable(
        () => runners.for(call.callId),
        (runner) => runner.standby(jobOf(call), Date.now() + DEFAULT_LEASE_MS),
      );
    },
    async hold(call) {
      // Idempotent per owner, so a retryable failure may be sent again.
      return callDurable(
        () => runners.for(call.callId),
        (runner) => runner.hold(jobOf(call)),
      );
    },
  };
}
