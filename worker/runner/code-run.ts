/** What a Runner does for code mode (docs/code-mode.md): a code run held for its call's approval, and its calls. */
import type { BatchOptions } from "../../src/options";
import { withCodeTool } from "../code-mode/mode";
import { rateLimitHook } from "../caller-hooks";
import { loadedCodeModeLibrary } from "../code-mode-library";
import { callDurable } from "../durable/call";
import type { Bindings } from "../env";
import { pipelineOptions } from "../execution";
import type { Tenant } from "../tenant/tenant";
import { tenantRunners, type RunJob, type RunnerNamespace } from "./address";

/** The lease a code run waiting for its call's approval keeps, renewed at each look at that call. */
export const WAITING_LEASE_MS = 3 * 60_000;

/** What a held code run waits for changed (its call was decided or ended, it was cancelled): it looks now. */
export async function wakeRun(env: Bindings, tenant: string, run: string): Promise<void> {
  const runners = tenantRunners({ RUNNERS: env.RUNNERS as unknown as RunnerNamespace }, tenant);
  await callDurable(
    () => runners.for(run),
    (runner) => runner.wake(),
  ).catch(() => undefined);
}

/**
 * The options a Runner's run of this job needs beyond its own: a code run's call keeps its parent on
 * its record; a held code run runs its program again with its calls made as its caller's (key,
 * surface, allow-list), checked against those it made before, and is held again (`park`) should the
 * program reach another call that waits for approval.
 */
export function codeRunOptions(
  env: Bindings,
  tenant: Tenant,
  job: RunJob,
  options: BatchOptions,
  host: { waitUntil: (promise: Promise<unknown>) => void; writeScope: string; park: (again: RunJob) => void },
): Partial<BatchOptions> {
  const more: Partial<BatchOptions> = {};
  if (job.parent && options.journal) more.journal = loadedCodeModeLibrary().childJournal(options.journal, job.parent);
  const wait = job.codeRun;
  if (!wait) return more;
  const children = pipelineOptions(env, tenant, {
    key: wait.key,
    ...(wait.user ? { user: wait.user } : {}),
    ...(wait.surface ? { surface: wait.surface } : {}),
    waitUntil: host.waitUntil,
    writeScope: host.writeScope,
  });
  // The caller's rate limits hold for the calls made after the wait too (the allow-list is the API's).
  if (wait.rateLimits?.length)
    children.hooks = [tenant.hooks, { beforeCall: rateLimitHook(env, tenant.name, wait.rateLimits) }];
  const waits = loadedCodeModeLibrary().replayWaits(job, host.park);
  more.registry = withCodeTool(tenant, env.LOADER, children, wait.allowed && new Set(wait.allowed), waits);
  return more;
}
