import type { Context } from "hono";
import { Hono } from "../hono-lazy";
import * as v from "valibot";
import type { CallRecord } from "../../src/result";
import { callDurable } from "../durable/call";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { tenantLedger } from "../ledger/address";
import { DEFAULT_LEASE_MS } from "../ledger/journal";
import type { ApprovedCall, Decider } from "../ledger/types";
import { forbidden, hasScope, requireScope } from "../middleware/auth";
import { viewerOf } from "../ledger/viewer";
import { tenantTextMasker } from "../tenant/mask";
import { needRemoteTools } from "../middleware/tenant";
import { createCallRunner } from "../runner/host";
import { wakeRun } from "../runner/code-run";
import { decodeCursor, intParam, listNewest } from "./ledger-paging";
import { approvalReasons } from "../tenant/approval";

const DecisionBody = v.object({
  decision: v.picklist(["approve", "deny"], 'decision must be "approve" or "deny"'),
  reason: v.optional(v.pipe(v.string(), v.maxLength(500, "reason must be at most 500 characters"))),
});

/** Starts an approved call's run; errors are the caller's to record. */
export type ApprovedRunner = (c: Context<AppEnv>, approved: ApprovedCall) => Promise<unknown>;

/**
 * The default: the approved call runs detached (its own Runner object), through the same pipeline as
 * POST /v1/calls (registry, hooks, secrets, gates), marked approved and recording into the ledger as
 * the owner the decision handed out: it runs to its end however long it takes, after the admin's
 * answer and apart from the admin's request.
 */
export const runApprovedCall: ApprovedRunner = async (c, approved) => {
  const runner = createCallRunner(c.env, c.var.tenant.name, c.env.TOOLGATE_CONFIG);
  if (!runner) throw new Error("this Worker has no RUNNERS binding (see wrangler.toml)");
  const tenant = await needRemoteTools(c, [approved.call.name]);
  const policy = tenant.registry.get(approved.call.name)?.policy;
  const idempotent = (policy?.idempotent ?? policy?.readOnly) === true;
  await runner.detach({
    callId: approved.call.id,
    tool: approved.call.name,
    args: approved.call.arguments,
    owner: approved.owner,
    idempotent,
    approved: true,
    ...(approved.user ? { user: approved.user } : {}),
    // A code run's call: its record keeps its run as parent, and its run, held for it, goes on once it ends.
    ...(approved.record.parent ? { parent: approved.record.parent } : {}),
    // A traced call's run continues its trace, with the wait for this decision as a span.
    ...(approved.record.trace === undefined
      ? {}
      : {
          traceparent: approved.record.trace,
          waited: { for: "approval", since: approved.record.startedAt + approved.record.durationMs },
        }),
  });
};

/** If the run cannot even start (not a tool failure), the record still ends instead of turning unknown. */
async function startOrSettle(c: Context<AppEnv>, run: ApprovedRunner, approved: ApprovedCall): Promise<void> {
  try {
    await run(c, approved);
  } catch (error) {
    const message = `The approved call could not be started: ${error instanceof Error ? error.message : String(error)}`;
    const record: CallRecord = { ...approved.record, status: "failed", error: { code: "internal", message } };
    const shard = () => tenantLedger(c.env, c.var.tenant.name).for(approved.call.id);
    await callDurable(shard, (ledger) => ledger.complete(approved.owner, record));
  }
}

/**
 * Who decides: an admin, always; for a tool whose policy is approval: "user", also a caller who sees
 * the call in its records: the person it was made for (any surface), or the key (or OAuth grant) that
 * made it, acting for the same user. Another caller's call is not found. Answers who decides, as
 * decided_by keeps it: `user:<id>` for a caller acting for a user, else `key:<name>`.
 */
async function requireDecider(c: Context<AppEnv>, callId: string): Promise<Decider> {
  const { caller } = c.var;
  const by = caller.user ? `user:${caller.user.id}` : `key:${caller.keyName}`;
  if (hasScope(caller, "admin")) return { by, admin: true };
  if (!hasScope(caller, "call")) throw forbidden(caller, "admin");
  const shard = () => tenantLedger(c.env, c.var.tenant.name).for(callId);
  const entry = await callDurable(shard, (ledger) => ledger.get(callId, viewerOf(caller)));
  if (!entry) throw new ApiError(404, "not_found", `No call ${callId} is recorded.`);
  const tool = (await needRemoteTools(c, [entry.record.tool])).registry.get(entry.record.tool);
  if (tool?.policy.approval !== "user") throw forbidden(caller, "admin");
  return { by, admin: false };
}

/**
 * GET /v1/approvals (call): the calls awaiting a decision the caller may see (admin: all; a person:
 * theirs; a key: its own, per user), newest first, with masked arguments, each saying whether the
 * caller may decide it. POST /v1/approvals/:id (admin; for approval: "user" tools, also the caller
 * who made the call, or the person it was made for)
 * { decision, reason? }: deny records the reason; approve starts the call's detached run and answers
 * 202; GET /v1/calls/:id?wait= tells its outcome. Deciding twice, or after expiry or cancel, answers 409.
 */
export function approvalRoutes(run: ApprovedRunner = runApprovedCall) {
  return new Hono<AppEnv>()
    .get("/", requireScope("call"), async (c) => {
      const limit = intParam(c.req.query("limit"), "limit", 1, 200, 50);
      const before = decodeCursor(c.req.query("cursor"));
      const viewer = viewerOf(c.var.caller);
      const query = { limit, viewer, awaitingApproval: true, ...(before ? { before } : {}) };
      const { entries, nextCursor } = await listNewest(c, query);
      const tenant =
        entries.length > 0
          ? await needRemoteTools(
              c,
              entries.map((entry) => entry.record.tool),
            )
          : c.var.tenant;
      const approvals = entries.map(({ record, approval, key, surface, user }) => {
        const tool = tenant.registry.get(record.tool);
        // Admins decide every call; others see their own, and decide those whose tool asks its user.
        const decidable = viewer === null || tool?.policy.approval === "user";
        return {
          callId: record.callId,
          tool: record.tool,
          args: record.args ?? null,
          requestedAt: record.startedAt,
          expiresAt: approval?.expiresAt ?? null,
          key,
          surface,
          risk: tool?.policy.risk ?? "low",
          reasons: approvalReasons(tool, tenant.config),
          user: user ?? null,
          decidable,
        };
      });
      return c.json({ approvals, nextCursor });
    })
    .post("/:id", async (c) => {
      const callId = c.req.param("id");
      const by = await requireDecider(c, callId);
      const parsed = v.safeParse(DecisionBody, await c.req.json().catch(() => undefined));
      if (!parsed.success)
        throw new ApiError(400, "invalid_body", parsed.issues[0]?.message ?? "Send { decision, reason? }.");
      const { decision } = parsed.output;
      // Stored and shown as written, without the pipeline's masking: mask it here.
      const reason = parsed.output.reason === undefined ? undefined : tenantTextMasker(c)(parsed.output.reason);
      const shard = () => tenantLedger(c.env, c.var.tenant.name).for(callId);
      // Not repeated: a decision that reached the shard and is sent again answers already_decided.
      const outcome = await callDurable(
        shard,
        (ledger) => ledger.decide(callId, decision, reason, DEFAULT_LEASE_MS, by),
        {
          tries: 1,
        },
      );
      if (!outcome.ok && outcome.error === "not_found")
        throw new ApiError(404, "not_found", `No call ${callId} is recorded.`);
      if (!outcome.ok) {
        const state = outcome.entry?.approval?.state ?? outcome.entry?.record.status;
        throw new ApiError(409, "already_decided", `The call ${callId} is not awaiting a decision (it is ${state}).`);
      }
      if (outcome.decision === "deny") {
        // A code run held for this call goes on now, the denial thrown in its program.
        const parent = outcome.entry.record.parent;
        if (parent) await wakeRun(c.env, c.var.tenant.name, parent);
        return c.json({ callId, decision, call: outcome.entry });
      }
      await startOrSettle(c, run, outcome.approved);
      return c.json({ callId, decision, status: "running" }, 202);
    });
}

export const approvals = approvalRoutes();
