/**
 * One detached call, as a Durable Object: start() stores it and sets the alarm, and the alarm runs it
 * through the same pipeline as a request would (admit, gate, attempts, finish), finishing its ledger
 * record with the claim's owner token. Alarms run at least once and are retried when the object dies
 * mid-run, so a run found begun but not finished is settled by the tool's policy: an idempotent tool
 * runs again (once), any other ends `unknown`, never run twice.
 */
import { DurableObject } from "cloudflare:workers";
import { executeCall } from "../../src/pipeline/execute";
import type { ErrorCode } from "../../src/errors";
import type { CallRecord } from "../../src/result";
import { TERMINAL_STATUSES } from "../../src/result";
import { withListedTools } from "../tenant/live-adapters";
import type { Catalog } from "../tenant/catalog";
import { callDurable } from "../durable/call";
import type { Bindings } from "../env";
import { pipelineOptions } from "../execution";
import { tenantLedger } from "../ledger/address";
import { DEFAULT_LEASE_MS } from "../ledger/journal";
import { readyTenant } from "../tenant/ready";
import type { RunJob, RunnerStub } from "./address";
import { beginRun, clearJob, migrate, readJob, writeJob, type StoredJob } from "./store";
import type { AskChannel } from "../../src/ask";
import type { JsonValue } from "../../src/json";
import { settingsFromEnv } from "../ledger/settings";
import { logCall } from "../log";
import { telemetryLibrary, type RunTrace } from "../telemetry-library";
import { userConnectionsOp } from "../connections/resume";
import { codeRunOptions, WAITING_LEASE_MS, wakeRun } from "./code-run";
import { codeModeLibrary } from "../code-mode-library";

/** The log line of a call its Runner ended names no request: the run is the Runner's alarm. */
const RUNNER_REQUEST_ID = "runner";

/** A run lost with its host is begun again at most this often in all (idempotent tools only). */
const MAX_RUNS = 2;
/** How often a standby looks at an inline run that is still going. */
const STANDBY_RECHECK_MS = DEFAULT_LEASE_MS;
/**
 * A run in progress keeps an alarm set this far ahead: if its instance dies and the platform's retry
 * of the alarm does not come (or comes late), this one finds the run begun and settles it. Cloudflare
 * ends an alarm handler after 15 minutes of wall time, so no run outlives it.
 */
export const WATCHDOG_MS = 15 * 60_000 + 30_000;

const TERMINAL = new Set<string>(TERMINAL_STATUSES);

/** How often a code run waiting for its call's approval looks at that call (and keeps its own lease). */
const CHILD_RECHECK_MS = WAITING_LEASE_MS / 3;

/** How often a job kept for its caller's answers looks whether the call still waits, past its deadline. */
const ASKING_RECHECK_MS = 60_000;

/** A task's run may ask its caller what the caller declared it answers, with every answer so far. */
function askChannelOf(job: RunJob): { ask?: AskChannel } {
  if (!job.asks) return {};
  const modes = job.elicitationModes ? { elicitationModes: new Set(job.elicitationModes) } : {};
  return { ask: { responses: job.answers ?? {}, methods: new Set(job.asks), ...modes, waits: true } };
}

/** The job, noting that its call waits for its caller's answers from now (a span of the next run's trace). */
function waitingForInput(job: RunJob): RunJob {
  return { ...job, waited: { for: "input", since: Date.now() } };
}

/** The Runner class as an entry module exports it: a Durable Object answering RunnerStub's methods. */
export type RunnerClass = new (ctx: DurableObjectState, env: Env) => DurableObject<Env> & RunnerStub;

export function createRunnerClass(catalog: Catalog): RunnerClass {
  return class Runner extends DurableObject<Env> {
    /** This instance is running the job now (a repeated alarm must not start it twice). */
    private running = false;

    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, env);
      migrate(ctx.storage.sql);
    }

    /** Holds the call and starts it (its alarm runs it, so it outlives the caller). Idempotent per call id. */
    async start(job: RunJob): Promise<{ ok: true; state: string }> {
      const held = readJob(this.ctx.storage.sql);
      if (held) return { ok: true, state: held.state };
      writeJob(this.ctx.storage.sql, job, "waiting");
      await this.ctx.storage.setAlarm(Date.now());
      return { ok: true, state: "waiting" };
    }

    /** An auto call runs on in its request: look at checkAt whether that request finished it. */
    async standby(job: RunJob, checkAt: number): Promise<{ ok: true; state: string }> {
      const held = readJob(this.ctx.storage.sql);
      if (held) return { ok: true, state: held.state };
      writeJob(this.ctx.storage.sql, job, "standby");
      await this.ctx.storage.setAlarm(checkAt);
      return { ok: true, state: "standby" };
    }

    /**
     * A call that ran in its request asked a caller who answers later (an HTTP call): the job is kept
     * for resume() as after a run of its own that asked (awaitAnswers). An auto call's standby gives
     * way to it; any other job held is another run's, and this call is not held (false).
     */
    async hold(job: RunJob): Promise<boolean> {
      const held = readJob(this.ctx.storage.sql);
      if (held && held.state !== "standby") return held.state === "asking" && held.job.owner === job.owner;
      writeJob(this.ctx.storage.sql, waitingForInput(job), "asking");
      await this.keepAsking();
      return true;
    }

    /**
     * A task's questions were all answered (the ledger's row runs again as `owner`): run the held job
     * again with every answer so far. Idempotent per owner; false when no job is held.
     */
    async resume(owner: string, answers: Record<string, JsonValue>): Promise<boolean> {
      const held = readJob(this.ctx.storage.sql);
      if (!held) return false;
      if (held.job.owner === owner) return true;
      writeJob(this.ctx.storage.sql, { ...held.job, owner, answers }, "waiting");
      await this.ctx.storage.setAlarm(Date.now());
      return true;
    }

    /**
     * A code run reached a call that waits for approval (from its request, or its run here): hold it,
     * its record running and showing what it waits for, until that call is decided. Idempotent per owner.
     */
    async awaitChild(job: RunJob): Promise<boolean> {
      const held = readJob(this.ctx.storage.sql);
      if (held && held.job.owner !== job.owner) return false;
      writeJob(this.ctx.storage.sql, job, "child");
      await this.noteWaiting(job);
      await this.ctx.storage.setAlarm(Date.now());
      return true;
    }

    /** The call a held code run waits for was decided or ended: look now (a run begun already is left alone). */
    async wake(): Promise<void> {
      if (readJob(this.ctx.storage.sql)?.state === "child") await this.ctx.storage.setAlarm(Date.now());
    }

    override async alarm(): Promise<void> {
      const held = readJob(this.ctx.storage.sql);
      if (!held || this.running) return;
      if (held.state === "waiting") return this.run(held);
      if (held.state === "standby") return this.lookAfter(held);
      if (held.state === "asking") return this.lookAfterAsking(held);
      if (held.state === "child") return this.lookAfterChild(held);
      // Begun by an earlier instance that never finished: its host died (evicted, redeployed, cut off).
      if (held.job.idempotent && held.attempts < MAX_RUNS) return this.run(held);
      await this.settleUnknown(
        held.job,
        "its run was interrupted (the host running it restarted) and the tool is not idempotent",
      );
      this.done();
    }

    /** Runs the call to its end; the pipeline's journal records the outcome as the claim's owner. */
    private async run(held: StoredJob): Promise<void> {
      const { job } = held;
      let trace: RunTrace | undefined;
      beginRun(this.ctx.storage.sql);
      await this.ctx.storage.setAlarm(Date.now() + WATCHDOG_MS);
      this.running = true;
      try {
        const env = this.env as unknown as Bindings;
        const local = job.config === undefined ? env : { ...env, TOOLGATE_CONFIG: job.config };
        const tenant = await withListedTools(await readyTenant(local, undefined, catalog), local);
        // A cancel accepted before the run began holds it back (an approved call is still pending here).
        if (!job.approved && (await this.cancelledBeforeStart(job))) {
          await this.settle(job, "cancelled", "The call was cancelled before its detached run began.", "cancelled");
          return;
        }
        // A tenant with `telemetry`: the run continues its call's trace (the library loads on first use).
        const traces = tenant.config.telemetry?.traces;
        if (traces) trace = (await telemetryLibrary()).traceRun(job, tenant.name, traces);
        const waitUntil = (p: Promise<unknown>) => this.ctx.waitUntil(p);
        // Its ledger writes are its own: grouped with another object's, their I/O would cross objects.
        const writeScope = `runner/${this.ctx.id.toString()}`;
        const options = pipelineOptions(local, tenant, {
          owner: job.owner,
          ...(job.user ? { user: job.user } : {}),
          approved: job.approved === true,
          waitUntil,
          writeScope,
          // A call needing a connection its user lacks parks until they connect (worker/connections/resume.ts).
          ...(job.origin === undefined ? {} : { origin: job.origin }),
          parkCallId: job.callId,
        });
        // A code run's program runs again; a code run's call keeps its parent (docs/code-mode.md).
        const park = (again: RunJob) => void writeJob(this.ctx.storage.sql, again, "child");
        Object.assign(options, codeRunOptions(local, tenant, job, options, { waitUntil, writeScope, park }));
        const result = await executeCall(
          { id: job.callId, name: job.tool, arguments: job.args },
          { ...options, ...askChannelOf(job), ...(trace ? { tracer: trace.tracer } : {}) },
        );
        logCall(RUNNER_REQUEST_ID, result.record);
        if (result.record.status === "awaiting_input") return await this.awaitAnswers(job, result.record);
        if (job.parent) await wakeRun(local, job.tenant, job.parent);
        // The program reached another call waiting for approval: held again for it.
        const again = readJob(this.ctx.storage.sql);
        if (again?.state === "child") {
          await this.noteWaiting(again.job);
          await this.ctx.storage.setAlarm(Date.now());
          return;
        }
      } catch (error) {
        // The pipeline never throws for the call's own failures: this is the host (config, storage).
        await this.settleFailed(job, error instanceof Error ? error.message : String(error));
      } finally {
        this.running = false;
        // Its spans go once its journal writes have settled, off the run's path.
        if (trace) this.ctx.waitUntil(trace.exported(this.env as unknown as Record<string, unknown>));
      }
      this.done(job.owner);
    }

    /**
     * The run asked its caller and the call now waits in the ledger: the job is kept (its raw arguments
     * are here) for resume(); an alarm after the wait's deadline lets go of it if no answer came.
     */
    private async awaitAnswers(job: RunJob, record: CallRecord): Promise<void> {
      const held = readJob(this.ctx.storage.sql);
      // Answered already, while this run was finishing: resume() replaced the job; run it.
      if (held && held.job.owner !== job.owner) return void (await this.ctx.storage.setAlarm(Date.now()));
      writeJob(this.ctx.storage.sql, waitingForInput(job), "asking");
      await this.keepAsking();
      const key = Object.keys(record.error?.inputRequests ?? {}).find((asked) => asked.startsWith("connect:"));
      // A failure leaves the call parked: the user's next connect resumes it.
      if (key) await this.connectedMeanwhile(job, key).catch(() => undefined);
    }

    /**
     * The run parked for a connection (worker/connections/resume.ts) that its user made meanwhile, which
     * their connect's callback could not resume before the call waited: it is answered here.
     */
    private async connectedMeanwhile(job: RunJob, key: string): Promise<void> {
      const { user, tenant, callId } = job;
      if (!user || !(await userConnectionsOp(this.env, tenant, user.id, "parkedReady", callId))) return;
      const answers = { [key]: { action: "accept" } };
      const outcome = await callDurable(
        () => this.ledgerOf(job),
        (shard) => shard.answer(callId, null, answers, DEFAULT_LEASE_MS),
        { tries: 1 },
      );
      if (outcome.ok && outcome.state === "resume") await this.resume(outcome.owner, outcome.answers);
    }

    /** A job kept for answers is looked at once the call's wait for them has ended (lookAfterAsking). */
    private async keepAsking(): Promise<void> {
      const { inputTtlMs } = settingsFromEnv(this.env as unknown as Record<string, unknown>);
      await this.ctx.storage.setAlarm(Date.now() + inputTtlMs + ASKING_RECHECK_MS);
    }

    /** A job kept for its caller's answers: let go of it once the call no longer waits (ended, cancelled, expired). */
    private async lookAfterAsking(held: StoredJob): Promise<void> {
      const entry = await this.ledgerOf(held.job)
        .get(held.job.callId, null)
        .catch(() => undefined);
      const status = entry?.record.status;
      if (status === "awaiting_input" || status === "running" || status === undefined) {
        await this.ctx.storage.setAlarm(Date.now() + ASKING_RECHECK_MS);
        return;
      }
      this.done(held.job.owner);
    }

    /**
     * A code run waiting for its call's approval: while the call is pending it keeps the run's lease (a
     * cancel of the run cancels the call too); once the call has ended (approved and run, denied,
     * expired, cancelled), the program runs again from the start, its calls answered from their records.
     */
    private async lookAfterChild(held: StoredJob): Promise<void> {
      const { job } = held;
      const child = job.codeRun!.child;
      const ledger = (callId: string) => () => tenantLedger(this.env as unknown as Bindings, job.tenant).for(callId);
      const run = await callDurable(ledger(job.callId), (shard) =>
        shard.confirmStart(job.callId, job.owner, WAITING_LEASE_MS),
      ).catch(() => undefined);
      if (run?.done) return this.done(job.owner);
      if (run?.cancel) {
        const why = `its code run ${job.callId} was cancelled`;
        await callDurable(ledger(child), (shard) => shard.cancel(child, null, why)).catch(() => undefined);
        const message = `The run was cancelled while it waited for the approval of its call ${child}.`;
        await this.settle(job, "cancelled", message, "cancelled");
        return this.done(job.owner);
      }
      const entry = run && (await callDurable(ledger(child), (shard) => shard.get(child, null)).catch(() => undefined));
      if (!entry || !TERMINAL.has(entry.record.status)) {
        await this.ctx.storage.setAlarm(Date.now() + CHILD_RECHECK_MS);
        return;
      }
      writeJob(this.ctx.storage.sql, job, "waiting");
      return this.run(readJob(this.ctx.storage.sql)!);
    }

    /** The run's record shows what it waits for (its progress: the calls made, and the call that waits). */
    private async noteWaiting(job: RunJob): Promise<void> {
      const progress = (await codeModeLibrary()).waitingProgress(job);
      await callDurable(
        () => this.ledgerOf(job),
        (shard) => shard.progress(job.callId, job.owner, progress),
      ).catch(() => undefined);
    }

    /** An auto call's request may have died: an idempotent tool runs again here, others were settled unknown. */
    private async lookAfter(held: StoredJob): Promise<void> {
      const entry = await this.ledgerOf(held.job)
        .get(held.job.callId, null)
        .catch(() => undefined);
      const status = entry?.record.status;
      if (status === "running" || status === undefined) {
        // Still going in its request (or the ledger did not answer): look again later.
        await this.ctx.storage.setAlarm(Date.now() + STANDBY_RECHECK_MS);
        return;
      }
      // The lease lapsed (the request died): the ledger marked it unknown; an idempotent tool may run again.
      if (status === "unknown" && held.job.idempotent) return this.run(held);
      this.done();
    }

    /** Whether a cancel was accepted for the call (one check-and-renew on its shard, as a gate's waiter does). */
    private async cancelledBeforeStart(job: RunJob): Promise<boolean> {
      const outcome = await callDurable(
        () => this.ledgerOf(job),
        (shard) => shard.confirmStart(job.callId, job.owner, DEFAULT_LEASE_MS),
      );
      return outcome.cancel;
    }

    private ledgerOf(job: RunJob) {
      return tenantLedger(this.env as unknown as Bindings, job.tenant).for(job.callId);
    }

    /** The record ends unknown with why (only the owner's running or unknown row changes). */
    private async settleUnknown(job: RunJob, why: string): Promise<void> {
      const message =
        `The outcome of this call is unknown: ${why}. ` +
        `It was not run again; check before calling it again with a new id.`;
      await this.settle(job, "unknown", message);
    }

    private async settleFailed(job: RunJob, why: string): Promise<void> {
      await this.settle(job, "failed", `The detached run of this call could not start: ${why}`);
    }

    /** Ends the record as `status` with why (only the owner's running or unknown row changes). */
    private async settle(
      job: RunJob,
      status: CallRecord["status"],
      message: string,
      code: ErrorCode = "internal",
    ): Promise<void> {
      const ledger = () => this.ledgerOf(job);
      const entry = await callDurable(ledger, (shard) => shard.get(job.callId, null)).catch(() => null);
      if (!entry || (TERMINAL.has(entry.record.status) && entry.record.status !== "unknown")) return;
      const record: CallRecord = {
        ...entry.record,
        status,
        error: { code, message },
        durationMs: Date.now() - entry.record.startedAt,
      };
      logCall(RUNNER_REQUEST_ID, record);
      await callDurable(ledger, (shard) => shard.complete(job.owner, record)).catch(() => undefined);
    }

    /**
     * The job is over: the object keeps nothing (and needs no alarm). Given the run's owner, only that
     * run's job goes: one that resume() put in its place meanwhile is run instead.
     */
    private done(owner?: string): void {
      const held = readJob(this.ctx.storage.sql);
      if (owner !== undefined && held && held.job.owner !== owner) {
        void this.ctx.storage.setAlarm(Date.now()).catch(() => undefined);
        return;
      }
      clearJob(this.ctx.storage.sql);
      void this.ctx.storage.deleteAlarm().catch(() => undefined);
    }
  };
}
