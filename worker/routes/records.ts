import type { Context } from "hono";
import { Hono } from "../hono-lazy";
import * as v from "valibot";
import type { JsonValue } from "../../src/json";
import { unparkCancelled } from "../connections/resume";
import { answerCall } from "../runner/answer";
import { tenantRunners } from "../runner/address";
import { wakeRun } from "../runner/code-run";
import { cutText } from "../../src/budget";
import { CALL_STATUSES, type CallStatus } from "../../src/result";
import { callDurable } from "../durable/call";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { tenantLedger, type LedgerStub } from "../ledger/address";
import type { ListQuery } from "../ledger/types";
import { requireScope } from "../middleware/auth";
import { viewerOf } from "../ledger/viewer";
import { tenantTextMasker } from "../tenant/mask";
import { getFormat } from "../../src/formats";
import { formatTakesPost } from "../formats";
import { CALL_SURFACES, type CallSurface } from "../../src/contract/surface";
import { EXPORT_MAX, exportCalls } from "./calls-export";
import { decodeCursor, intParam, listNewest, timeParam } from "./ledger-paging";

const STATUSES: readonly CallStatus[] = CALL_STATUSES;
const MAX_FILTER_CHARS = 256;
const MAX_WAIT_SECONDS = 60;
const MAX_RESULT_PAGE = 1_000_000;

/** One RPC to the call's shard; tries: 1 for a request that is not safe to repeat (see durable/call.ts). */
function onShard<T>(
  c: Context<AppEnv>,
  callId: string,
  run: (ledger: LedgerStub) => Promise<T>,
  tries?: number,
): Promise<T> {
  const ledger = tenantLedger(c.env, c.var.tenant.name);
  return callDurable(() => ledger.for(callId), run, tries === undefined ? {} : { tries });
}

/** Also the answer for another key's call: a call-scope key cannot tell it exists. */
function notFound(callId: string): never {
  throw new ApiError(
    404,
    "not_found",
    `No call ${callId} is recorded (it never reached this tenant, or it was pruned).`,
  );
}

/** A free-text filter: absent when empty, bounded in length. */
function textParam(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (value.length > MAX_FILTER_CHARS)
    throw new ApiError(400, "invalid_query", `${name} must be at most ${MAX_FILTER_CHARS} characters.`);
  return value;
}

/** The filters GET /v1/calls and its export share, checked (400 naming the parameter). */
function listFilters(c: Context<AppEnv>): Omit<ListQuery, "limit"> {
  const status = c.req.query("status");
  if (status !== undefined && status !== "" && !STATUSES.includes(status as CallStatus)) {
    throw new ApiError(400, "invalid_query", `status must be one of ${STATUSES.join(", ")}.`);
  }
  const surface = c.req.query("surface");
  if (surface !== undefined && surface !== "" && !CALL_SURFACES.includes(surface as CallSurface)) {
    throw new ApiError(400, "invalid_query", `surface must be one of ${CALL_SURFACES.join(", ")}.`);
  }
  const query: Omit<ListQuery, "limit"> = { viewer: viewerOf(c.var.caller) };
  const tool = textParam(c.req.query("tool"), "tool");
  const callIdPrefix = textParam(c.req.query("callId"), "callId");
  const key = textParam(c.req.query("key"), "key");
  const user = textParam(c.req.query("user"), "user");
  const since = timeParam(c.req.query("since"), "since");
  const until = timeParam(c.req.query("until"), "until");
  const before = decodeCursor(c.req.query("cursor"));
  if (tool) query.tool = tool;
  if (status) query.status = status as CallStatus;
  if (surface) query.surface = surface as CallSurface;
  if (callIdPrefix) query.callIdPrefix = callIdPrefix;
  if (key) query.key = key;
  if (user) query.user = user;
  if (since !== undefined) query.since = since;
  if (until !== undefined) query.until = until;
  if (before) query.before = before;
  return query;
}

/**
 * Call records: GET /v1/calls (newest first, merged across the ledger's shards, keyset-paged),
 * GET /v1/calls/:id (?wait= long-polls until terminal), GET /v1/calls/:id/result (the full output,
 * paged by characters), POST /v1/calls/:id/cancel and POST /v1/calls/:id/input (answers to a call
 * waiting for its caller, as an MCP task's tasks/update). A call-scope key sees only the calls made
 * with it; admin sees all.
 */
export const records = new Hono<AppEnv>()
  .get("/", requireScope("call"), async (c) => {
    const filters = listFilters(c);
    const as = c.req.query("as");
    if (as === "ndjson")
      return exportCalls(c, filters, intParam(c.req.query("limit"), "limit", 1, EXPORT_MAX, EXPORT_MAX));
    if (as !== undefined && as !== "")
      throw new ApiError(400, "invalid_query", 'as must be "ndjson" (an export) or absent.');
    const limit = intParam(c.req.query("limit"), "limit", 1, 200, 50);
    const { entries, nextCursor } = await listNewest(c, { ...filters, limit });
    return c.json({ calls: entries, nextCursor });
  })
  .get("/:id", requireScope("call"), async (c) => {
    const callId = c.req.param("id");
    const wait = intParam(c.req.query("wait"), "wait", 0, MAX_WAIT_SECONDS, 0);
    const entry = await onShard(c, callId, (ledger) => ledger.get(callId, viewerOf(c.var.caller), wait * 1000));
    if (entry) return c.json(entry);
    // No call of that id: a format's name is the route that runs calls, which takes POST.
    if (getFormat(callId)) throw formatTakesPost(callId, c.req.method);
    return notFound(callId);
  })
  .get("/:id/result", requireScope("call"), async (c) => {
    const callId = c.req.param("id");
    const offset = intParam(c.req.query("offset"), "offset", 0, Number.MAX_SAFE_INTEGER, 0);
    const limit = intParam(c.req.query("limit"), "limit", 1, MAX_RESULT_PAGE, 100_000);
    const page = await onShard(c, callId, (ledger) => ledger.result(callId, viewerOf(c.var.caller), offset, limit));
    if (page === "not_found") notFound(callId);
    if (page === "no_output")
      throw new ApiError(
        404,
        "no_output",
        `The call ${callId} has no output (it did not succeed, or has not finished).`,
      );
    return c.json(page);
  })
  .post("/:id/cancel", requireScope("call"), async (c) => {
    const callId = c.req.param("id");
    const body = (await c.req.json().catch(() => ({}))) as { reason?: unknown };
    // Masked before the cut: the reason is stored and shown as it is, without the pipeline's masking.
    const reason = typeof body?.reason === "string" ? cutText(tenantTextMasker(c)(body.reason), 500) : undefined;
    const outcome = await onShard(c, callId, (ledger) => ledger.cancel(callId, viewerOf(c.var.caller), reason), 1);
    if (outcome.ok && outcome.state === "cancelled") {
      await unparkCancelled(c.env, c.var.tenant, outcome.entry);
      return c.json({ callId, state: "cancelled", call: outcome.entry });
    }
    // Running: its journal aborts it (a queued call leaves its gate's queue); the record tells the end.
    if (outcome.ok) {
      // A code run held for its call's approval has no journal watching: its Runner looks now.
      if (outcome.entry.record.tool === c.var.tenant.config.codeMode?.tool)
        await wakeRun(c.env, c.var.tenant.name, callId);
      return c.json({ callId, state: "cancel_requested", call: outcome.entry }, 202);
    }
    if (outcome.error === "not_found") notFound(callId);
    throw new ApiError(409, "not_cancellable", `The call ${callId} already ended (${outcome.entry?.record.status}).`);
  })
  .post("/:id/input", requireScope("call"), async (c) => {
    const callId = c.req.param("id");
    const parsed = v.safeParse(InputBody, await c.req.json().catch(() => undefined));
    if (!parsed.success)
      throw new ApiError(
        400,
        "invalid_body",
        "Send { inputResponses: { <key>: <answer object> } }, " +
          "keyed as the call's open questions (error.inputRequests).",
      );
    const responses = parsed.output.inputResponses as Record<string, JsonValue>;
    const runners = c.env.RUNNERS ? tenantRunners(c.env, c.var.tenant.name) : undefined;
    const outcome = await answerCall(
      tenantLedger(c.env, c.var.tenant.name),
      runners,
      callId,
      viewerOf(c.var.caller),
      responses,
    );
    if (!outcome.ok && outcome.error === "not_found") notFound(callId);
    if (!outcome.ok) throw new ApiError(400, "invalid_body", `${outcome.message}; none of these answers was kept.`);
    if (outcome.state === "resume") return c.json({ callId, state: "resumed", call: outcome.entry }, 202);
    if (outcome.state === "waiting") return c.json({ callId, state: "awaiting_input", call: outcome.entry });
    const { record } = outcome.entry;
    if (record.status !== "awaiting_input") throw notAwaitingInput(callId, record.status);
    const open = Object.keys(record.error?.inputRequests ?? {}).join(", ");
    throw new ApiError(
      400,
      "unknown_keys",
      `None of these answers is for an open question of the call ${callId} (open: ${open}).`,
    );
  });

/** A 409 for answers to a call that does not wait for any; one that ended asking says what to do instead. */
function notAwaitingInput(callId: string, status: CallStatus): ApiError {
  const instead =
    status === "input_required"
      ? " It ended asking, and an ended call never runs again: an MCP client answers by calling the tool again with" +
        " inputResponses; an HTTP caller makes the call again (a new id), and that call waits for its answers here."
      : "";
  const message = `The call ${callId} is not waiting for input (it is ${status}).${instead}`;
  return new ApiError(409, "not_awaiting_input", message);
}

/** POST /v1/calls/:id/input: answers by question key (the same shape as MCP's inputResponses). */
const InputBody = v.object({ inputResponses: v.record(v.string(), v.looseObject({})) });
