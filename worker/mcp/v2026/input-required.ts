import * as v from "valibot";
import { ASK_KEY_PATTERN, canBeAsked, elicitationModeOf, type AskChannel, type InputRequest } from "../../../src/ask";
import type { JsonValue } from "../../../src/json";
import { RpcCode } from "../../../src/mcp/errors";
import type { CallResult } from "../../../src/result";
import { askableBy, askFlagsOf } from "../client-asks";
import type { FollowTarget } from "../follow";
import { RpcFailure } from "../jsonrpc";
import type { Envelope } from "./envelope";
import { callDigest, MAX_REQUEST_STATE_CHARS, openState, signState } from "./request-state";

/**
 * 2026-07-28 multi-round-trip requests for tools/call: a tool's ctx.ask becomes an InputRequiredResult
 * (`resultType: "input_required"`, its questions in `inputRequests`, the answers so far in a signed
 * `requestState`), and the client's retry carries `inputResponses` (and the state) back: the call is
 * made again, and ctx.ask answers from them.
 */

export const RetryParams = v.object({
  inputResponses: v.optional(v.record(v.string(), v.looseObject({})), undefined),
  requestState: v.optional(v.pipe(v.string(), v.maxLength(MAX_REQUEST_STATE_CHARS))),
});

/**
 * The capability a client declares for a question it is to be asked. A URL-mode elicitation needs
 * `elicitation.url`; a form one `elicitation: {}`, which the spec makes the same as `{ form: {} }`.
 */
function capabilityFor(request: InputRequest): [name: string, value: Record<string, unknown>] {
  if (request.method === "elicitation/create")
    return ["elicitation", elicitationModeOf(request) === "url" ? { url: {} } : {}];
  return [request.method === "sampling/createMessage" ? "sampling" : "roots", {}];
}

export interface Retry {
  /** The tool and arguments the answers belong to (a state made for another call is refused). */
  call: string;
  channel: AskChannel;
}

/**
 * The ask channel of a modern tools/call: what its client answers, and every answer so far. `waits`:
 * the call runs as a task in its Runner, whose questions wait in the task (input_required, tasks/update).
 */
export async function openRetry(
  params: unknown,
  envelope: Envelope,
  target: FollowTarget,
  tool: string,
  args: unknown,
  waits = false,
): Promise<Retry> {
  const parsed = v.safeParse(RetryParams, params);
  if (!parsed.success)
    throw new RpcFailure(
      RpcCode.invalidParams,
      "tools/call: inputResponses must be an object of answers (objects), requestState a string this server gave.",
    );
  const call = callDigest(tool, args);
  const responses: Record<string, JsonValue> = {};
  const { requestState, inputResponses } = parsed.output;
  if (requestState !== undefined) {
    const opened = await openState(target.ledger, call, requestState);
    if ("problem" in opened) throw new RpcFailure(RpcCode.invalidParams, `tools/call: ${opened.problem}.`);
    Object.assign(responses, opened.answers);
  }
  // Answers under keys no tool asks with are ignored, as the spec says of information a server does not recognise.
  for (const [key, answer] of Object.entries(inputResponses ?? {}))
    if (ASK_KEY_PATTERN.test(key)) responses[key] = answer as JsonValue;
  return { call, channel: { responses, ...askableBy(askFlagsOf(envelope.capabilities)), ...(waits ? { waits } : {}) } };
}

/**
 * The questions of a call that ended asking, as an InputRequiredResult carrying the answers so far;
 * a question the client did not declare it answers is -32021, naming the capabilities it needs (for
 * an elicitation, the mode: a URL-mode one is never sent to a client that declared only forms).
 */
export async function inputRequiredResult(
  result: CallResult,
  retry: Retry,
  target: FollowTarget,
): Promise<Record<string, unknown> | undefined> {
  if (result.ok || result.error.code !== "input_required" || !result.error.inputRequests) return undefined;
  const inputRequests: Record<string, InputRequest> = result.error.inputRequests;
  const required: Record<string, Record<string, unknown>> = {};
  for (const request of Object.values(inputRequests)) {
    if (canBeAsked(retry.channel, request)) continue;
    const [name, value] = capabilityFor(request);
    required[name] = { ...required[name], ...value };
  }
  if (Object.keys(required).length > 0) {
    const names = Object.entries(required).map(([name, value]) => [name, ...Object.keys(value)].join("."));
    throw new RpcFailure(
      RpcCode.missingClientCapability,
      `Missing required client capability: the tool asks for ${names.join(", ")}, which this request did not declare.`,
      {
        requiredCapabilities: required,
      },
    );
  }
  let requestState: string;
  try {
    requestState = await signState(target.ledger, retry.call, { ...retry.channel.responses });
  } catch (error) {
    if (error instanceof RangeError) throw new RpcFailure(RpcCode.invalidParams, `tools/call: ${error.message}.`);
    throw error;
  }
  return { resultType: "input_required", inputRequests, requestState };
}
