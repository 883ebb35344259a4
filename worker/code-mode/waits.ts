import { loadedCodeModeLibrary } from "../code-mode-library";
import { callDurable } from "../durable/call";
import { tenantRunners, type RunnerNamespace } from "../runner/address";
import type { RunMaker } from "./lazy/park";
import type { RunWaits } from "./lazy/tool";

/**
 * How a request's code run waits for one of its calls' approval: it is held by its Runner object
 * (worker/runner/), which runs the program again once the call is decided. Undefined without Runners.
 */
export function requestWaits(env: { RUNNERS?: RunnerNamespace }, maker: RunMaker): RunWaits | undefined {
  if (!env.RUNNERS) return undefined;
  const runners = tenantRunners({ RUNNERS: env.RUNNERS }, maker.tenant);
  return {
    park: (run) =>
      callDurable(
        () => runners.for(run.runId),
        (runner) => runner.awaitChild(loadedCodeModeLibrary().parkedJob(run, maker)),
      ),
  };
}
