import type { CallSurface } from "../../src/contract/surface";
import type { UserRef } from "../../src/contract/users";
import { callDurable } from "../durable/call";
import { tenantRunners, type RunnerNamespace } from "../runner/address";
import type { RunWaits } from "./lazy/tool";

/** Who makes a request's code runs, and where its tenant's configuration comes from. */
export interface RunMaker {
  tenant: string;
  /** The code tool's name (the tenant's `codeMode.tool`). */
  tool: string;
  key: string;
  user?: UserRef;
  surface?: CallSurface;
  /** A local configuration override (TOOLGATE_CONFIG) the run takes along, as a detached call does. */
  config?: string;
}

/**
 * How a request's code run waits for one of its calls' approval: it is held by its Runner object
 * (worker/runner/), which runs the program again once the call is decided. Undefined without Runners.
 */
export function requestWaits(env: { RUNNERS?: RunnerNamespace }, maker: RunMaker): RunWaits | undefined {
  if (!env.RUNNERS) return undefined;
  const runners = tenantRunners({ RUNNERS: env.RUNNERS }, maker.tenant);
  const { tenant, tool, key, user, surface, config } = maker;
  return {
    park: (run) =>
      callDurable(
        () => runners.for(run.runId),
        (runner) =>
          runner.awaitChild({
            callId: run.runId,
            tool,
            args: { code: run.code },
            owner: run.owner,
            idempotent: false,
            tenant,
            ...(user ? { user } : {}),
            ...(config === undefined ? {} : { config }),
            codeRun: {
              child: run.waiting.child,
              made: run.waiting.made,
              key,
              ...(user ? { user } : {}),
              ...(surface ? { surface } : {}),
              ...(run.allowed ? { allowed: run.allowed } : {}),
            },
          }),
      ),
  };
}
