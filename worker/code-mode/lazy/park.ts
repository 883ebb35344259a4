import type { CallSurface } from "../../../src/contract/surface";
import type { UserRef } from "../../../src/contract/users";
import type { Progress } from "../../../src/result";
import type { RunJob } from "../../runner/address";
import type { ParkedRun, RunWaits } from "./tool";

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
  /** The caller's rate limits, which the calls of the run made again take too. */
  rateLimits?: readonly { id: string; perMinute: number }[];
}

/** The Runner's job of a request's run that waits for its call's approval: run again as its maker's. */
export function parkedJob(run: ParkedRun, maker: RunMaker): RunJob {
  const { tenant, tool, key, user, surface, config, rateLimits } = maker;
  return {
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
      ...(rateLimits?.length ? { rateLimits: rateLimits.map(({ id, perMinute }) => ({ id, perMinute })) } : {}),
    },
  };
}

/**
 * How a Runner's run of a held code run goes: its claim is the job's, its calls are checked against
 * those the earlier run made, and should it reach another call that waits, it is held again (`hold`).
 */
export function replayWaits(job: RunJob, hold: (again: RunJob) => void): RunWaits {
  const wait = job.codeRun!;
  return {
    owner: job.owner,
    replayed: wait.made,
    park: async ({ waiting }) => {
      hold({ ...job, codeRun: { ...wait, child: waiting.child, made: waiting.made } });
      return true;
    },
  };
}

/** A waiting code run's progress, on its record: the calls it made, and the one it waits for. */
export function waitingProgress(job: RunJob): Progress {
  const { child, made } = job.codeRun!;
  const tool = made.at(-1)?.tool;
  const what = tool === undefined ? child : `${child} ("${tool}")`;
  return { progress: made.length, message: `Waits for the approval of its call ${what}.` };
}
