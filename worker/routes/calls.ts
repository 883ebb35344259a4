import type { Context } from "hono";
import { Hono } from "../hono-lazy";
import { ASK_METHODS, type AskChannel } from "../../src/ask";
import { executeBatch } from "../../src/pipeline/batch";
import type { Format } from "../../src/formats/format";
import type { AppEnv } from "../env";
import { overBatchLimit } from "../tenant/batch-limit";
import { ApiError } from "../errors";
import { executionOptions } from "../execution";
import { formatNamed, formatOf, refuseOtherMethods } from "../formats";
import { logCall } from "../log";
import { requireScope } from "../middleware/auth";
import { bodyText } from "../middleware/body-limit";
import { needRemoteTools } from "../middleware/tenant";

/**
 * What an HTTP caller answers: anything a tool asks (ctx.ask), later, through POST /v1/calls/:id/input.
 * A call that asks waits (awaiting_input, its questions in error.inputRequests) and runs again with
 * the answers in its Runner. approval: "user" is not asked: the call is parked for POST /v1/approvals/:id.
 */
const HTTP_CALLER: AskChannel = Object.freeze({
  responses: Object.freeze({}),
  methods: new Set(ASK_METHODS),
  elicitationModes: new Set(["form", "url"] as const),
  waits: true,
  parksUserApproval: true,
});

/** The body as JSON (see bodyText). */
async function readJson(c: Context<AppEnv>): Promise<unknown> {
  const text = await bodyText(c);
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_body", "The request body is not JSON.");
  }
}

/**
 * Decode the model's output, run every call through the pipeline, answer in the same format.
 * Tool failures are results inside the 200; only a malformed request is a 4xx.
 */
async function runCalls(c: Context<AppEnv>, body: unknown, format: Format): Promise<Response> {
  const decoded = format.decode(body);
  if (!decoded.ok) throw new ApiError(400, "invalid_calls", `Not ${format.name} tool calls: ${decoded.message}`);
  if (decoded.calls.length === 0) throw new ApiError(400, "no_calls", `The body holds no ${format.name} tool calls.`);
  const tooMany = overBatchLimit(c.get("tenant").config, decoded.calls.length, "calls");
  if (tooMany) throw new ApiError(400, "too_many_calls", tooMany);
  await needRemoteTools(
    c,
    decoded.calls.map((call) => call.name),
  );
  // Without Runners (no RUNNERS binding) nothing could run a call on with its answers: nobody is asked.
  const asks = c.env.RUNNERS ? { ask: HTTP_CALLER } : {};
  const results = await executeBatch(decoded.calls, { ...executionOptions(c), ...asks });
  const calls = results.map((result) => result.record);
  const { keyName, user } = c.get("caller");
  for (const record of calls) logCall(c.get("requestId"), record, keyName, user?.id);
  // A lone call whose id was already used with other arguments: the request itself conflicts (409);
  // in a batch the conflict is one result among others, so the batch still answers 200. A lone call
  // over its caller's rate limit is the request's 429 (in a batch, a `busy` result).
  const lone = results.length === 1 && !results[0]!.ok ? results[0]!.error : undefined;
  const limited = lone?.code === "busy" && c.get("rateLimitedMs") !== undefined;
  const status = lone?.code === "conflict" ? 409 : limited ? 429 : 200;
  const headers = limited
    ? { "Retry-After": String(Math.max(1, Math.ceil(c.get("rateLimitedMs")! / 1000))) }
    : undefined;
  return c.json({ ...(format.encode(results) as object), calls }, status, headers);
}

export const calls = new Hono<AppEnv>()
  .post("/", requireScope("call"), async (c) => {
    const body = await readJson(c);
    return runCalls(c, body, formatOf(body));
  })
  .post("/:format", requireScope("call"), async (c) => {
    const format = formatNamed(c.req.param("format"));
    return runCalls(c, await readJson(c), format);
  })
  .all("/:format", async (c, next) => {
    refuseOtherMethods(c.req.param("format"), c.req.method);
    await next();
  });
