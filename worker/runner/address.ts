import type { JsonValue } from "../../src/json";
import type { DetachedCall } from "../../src/runner";

/** A detached call as its Runner object holds it: the core's job plus where its tenant comes from. */
export interface RunJob extends DetachedCall {
  tenant: string;
  /** A local configuration override (TOOLGATE_CONFIG) the request had; deployed tenants bundle theirs. */
  config?: string;
  /** The origin of the request that made the call: where a user it needs to connect is sent. */
  origin?: string;
  /** Every answer its caller gave so far (a task's tasks/update, kept in the ledger): ctx.ask answers from them. */
  answers?: Record<string, JsonValue>;
}

/** A Runner object's RPC methods, as callers use them. */
export interface RunnerStub {
  start(job: RunJob): Promise<{ ok: true; state: string }>;
  standby(job: RunJob, checkAt: number): Promise<{ ok: true; state: string }>;
  /** A call of a request asked a caller who answers later: keep its job for resume() (false: not held). */
  hold(job: RunJob): Promise<boolean>;
  /** A task's answers came: run the held job again as `owner` with them (false: no job is held). */
  resume(owner: string, answers: Record<string, JsonValue>): Promise<boolean>;
}

/** The Runner Durable Object namespace as this module uses it (structural: scripts typecheck in Node). */
export interface RunnerNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): RunnerStub;
}

/** Where a tenant's detached calls run: one Runner object per call id. */
export interface RunnersAddress {
  readonly tenant: string;
  /** A fresh stub of the call's object. */
  for(callId: string): RunnerStub;
}

/** The tenant's runners in this environment (env.RUNNERS). */
export function tenantRunners(env: { RUNNERS: RunnerNamespace }, tenant: string): RunnersAddress {
  const ns = env.RUNNERS;
  return { tenant, for: (callId) => ns.get(ns.idFromName(`${tenant}/run/${callId}`)) };
}
