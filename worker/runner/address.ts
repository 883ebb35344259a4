import type { JsonValue } from "../../src/json";
import type { CallSurface } from "../../src/contract/surface";
import type { UserRef } from "../../src/contract/users";
import type { DetachedCall } from "../../src/runner";
import type { MadeCall } from "../code-mode/lazy/host";

/** A code run held until one of its calls is decided (docs/code-mode.md): that call, whose run it is, what it made. */
export interface CodeRunWait {
  child: string;
  made: (MadeCall | null)[];
  /** The key (or grant) that made the run: its calls run as that key's, within its allow-list. */
  key: string;
  /** The person the key acted for, as its records name them. */
  user?: UserRef;
  surface?: CallSurface;
  allowed?: string[];
  /** The caller's rate limits (the key's or grant's, its user's): the calls of the run again take them. */
  rateLimits?: { id: string; perMinute: number }[];
}

/** A detached call as its Runner object holds it: the core's job plus where its tenant comes from. */
export interface RunJob extends DetachedCall {
  tenant: string;
  /** A local configuration override (TOOLGATE_CONFIG) the request had; deployed tenants bundle theirs. */
  config?: string;
  /** The origin of the request that made the call: where a user it needs to connect is sent. */
  origin?: string;
  /** Every answer its caller gave so far (a task's tasks/update, kept in the ledger): ctx.ask answers from them. */
  answers?: Record<string, JsonValue>;
  /** A code run that waits for one of its calls' approval: run again from the start once it is decided. */
  codeRun?: CodeRunWait;
  /** The code run this call was made by (its record's parent): kept on the record, told when it ends. */
  parent?: string;
}

/** A Runner object's RPC methods, as callers use them. */
export interface RunnerStub {
  start(job: RunJob): Promise<{ ok: true; state: string }>;
  standby(job: RunJob, checkAt: number): Promise<{ ok: true; state: string }>;
  /** A call of a request asked a caller who answers later: keep its job for resume() (false: not held). */
  hold(job: RunJob): Promise<boolean>;
  /** A task's answers came: run the held job again as `owner` with them (false: no job is held). */
  resume(owner: string, answers: Record<string, JsonValue>): Promise<boolean>;
  /** A code run waits for one of its calls' approval: hold it until that call is decided (false: not held). */
  awaitChild(job: RunJob): Promise<boolean>;
  /** What a held code run waits for may have changed (its call was decided or ended): look now. */
  wake(): Promise<void>;
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
