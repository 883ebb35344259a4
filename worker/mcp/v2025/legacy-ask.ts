import { answersOverLimit, canBeAsked, type AskChannel, type AskFailure, type InputRequest } from "../../../src/ask";
import { isPlainObject, type JsonValue } from "../../../src/json";
import type { RpcRequest } from "../../../src/mcp/messages";
import type { CallResult } from "../../../src/result";
import { DurableUnavailable } from "../../durable/call";
import { allAnswered, type AskState } from "../../ledger/asks";
import { askableBy, unsupportedBy } from "../client-asks";
import type { AskStore } from "./ask-store";
import { askRequestId, roundCallId } from "./call-ids";

/**
 * ctx.ask (and approval: "user") for legacy sessions (2025-11-25 and earlier) whose client declared
 * what it answers: the questions of a call that ends asking go to the client as JSON-RPC requests
 * on the tools/call POST's stream, its responses come back as POSTs of their own (client-answers.ts)
 * to whichever isolate, and meet the waiting request only in the ledger shard of the call
 * (ask-store.ts). With the answers, the call is made again from the start, as ctx.ask's model has
 * it (src/ask.ts), within the same request: each round is a record of its own, the rounds that
 * asked end `input_required`. A question that gets no answer (an error, a timeout, the client gone
 * or cancelling) is a failure the next round's ctx.ask rejects with, so the last record says why.
 */

/** Rounds of questions one tools/call may ask; the round after the last has its questions refused. */
export const MAX_ASK_ROUNDS = 8;
/** Questions one round may ask at once. */
export const MAX_QUESTIONS = 8;
/** How long a round waits for its answers unless TOOLGATE_MCP_ASK_TIMEOUT_SECONDS says otherwise. */
export const DEFAULT_ASK_TIMEOUT_MS = 300_000;
/** Longest single wait in the ledger shard; the round's wait is a loop of these up to its timeout. */
const POLL_MS = 25_000;
/** A round's row outlives its wait by this much, then the shard's alarm drops it if nobody closed it. */
const ROW_MARGIN_MS = 60_000;

/** How one POST of a legacy session asks its client (dispatch.ts builds it for each tools/call). */
export interface LegacyAsker {
  /** The client-asks.ts bits of the session. */
  flags: number;
  sessionRef: string;
  store: AskStore;
  timeoutMs: number;
  /** A request on the POST's response stream. */
  send(request: RpcRequest): boolean;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  waitUntil?: (promise: Promise<unknown>) => void;
}

/** One round of the call: made as `callId` with the channel; `signal` cancels it. */
export type RunRound = (callId: string, channel: AskChannel | undefined, signal: AbortSignal) => Promise<CallResult>;

/**
 * The questions of a round that ended asking, when the client answers every one (its method, an elicitation's mode).
 */
function questionsOf(
  result: CallResult,
  askable: Pick<AskChannel, "methods" | "elicitationModes">,
): Record<string, InputRequest> | undefined {
  if (result.ok || result.error.code !== "input_required" || !result.error.inputRequests) return undefined;
  const questions = result.error.inputRequests;
  return Object.values(questions).every((question) => canBeAsked({ ...askable, responses: {} }, question))
    ? questions
    : undefined;
}

interface RoundOutcome {
  answers: Record<string, JsonValue>;
  failures: Record<string, AskFailure>;
  /** The client went away: the next round runs only to record why, beyond the request. */
  gone?: true;
}

const questionName = (key: string, question: InputRequest) => `${question.method} ("${key}")`;

function failAll(
  questions: Record<string, InputRequest>,
  failure: (what: string) => AskFailure,
  gone?: true,
): RoundOutcome {
  const failures = Object.fromEntries(
    Object.entries(questions).map(([key, question]) => [key, failure(questionName(key, question))]),
  );
  return gone ? { answers: {}, failures, gone } : { answers: {}, failures };
}

/** The client's JSON-RPC response to one question (as stored by client-answers.ts): an answer or a failure. */
function fromResponse(text: string, what: string): { answer: JsonValue } | { failure: AskFailure } {
  const response = JSON.parse(text) as { result?: JsonValue; error?: { code?: unknown; message?: unknown } };
  if (response.error !== undefined) {
    const { code, message } = isPlainObject(response.error) ? response.error : {};
    const codeSaid = typeof code === "number" ? `${code} ` : "";
    const said = `${codeSaid}${typeof message === "string" ? message.slice(0, 500) : "(no message)"}`;
    return { failure: { code: "tool_error", message: `The MCP client answered ${what} with an error: ${said}` } };
  }
  if (!isPlainObject(response.result))
    return {
      failure: { code: "tool_error", message: `The MCP client answered ${what} with a result that is not an object.` },
    };
  return { answer: response.result };
}

type Waited =
  | { kind: "answered"; state: AskState }
  | { kind: "cancelled"; reason: string }
  | { kind: "timeout" }
  | { kind: "gone" };

/**
 * Waits for the round's answers in the ledger shard: long-polls until answered, cancelled,
 * the deadline, or the client leaves.
 */
async function waitAnswers(asker: LegacyAsker, callId: string, nextRoundId: string): Promise<Waited> {
  const deadline = Date.now() + asker.timeoutMs;
  const gone = new Promise<"gone">((resolve) => {
    if (asker.signal.aborted) resolve("gone");
    else asker.signal.addEventListener("abort", () => resolve("gone"), { once: true });
  });
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return { kind: "timeout" };
    const state = await Promise.race([asker.store.wait(callId, Math.min(left, POLL_MS), nextRoundId), gone]);
    if (state === "gone") return { kind: "gone" };
    // The row is gone only once it expired, after the deadline.
    if (!state) return { kind: "timeout" };
    if (state.cancelled !== null) return { kind: "cancelled", reason: state.cancelled };
    if (allAnswered(state)) return { kind: "answered", state };
  }
}

/** Sends the round's questions to the client and waits for its answers. */
async function askRound(
  asker: LegacyAsker,
  callId: string,
  roundId: string,
  nextRoundId: string,
  questions: Record<string, InputRequest>,
): Promise<RoundOutcome> {
  const entries = Object.entries(questions);
  if (entries.length > MAX_QUESTIONS) {
    return failAll(questions, (what) => ({
      code: "tool_error",
      message:
        `The tool asked ${entries.length} questions at once (${what} among them); ` +
        `an MCP client is asked at most ${MAX_QUESTIONS} at a time.`,
    }));
  }
  const refused: Record<string, AskFailure> = {};
  const sent: [id: string, key: string, question: InputRequest][] = [];
  for (const [key, question] of entries) {
    const why = unsupportedBy(asker.flags, question);
    if (why)
      refused[key] = { code: "input_required", message: `The tool asks ${questionName(key, question)}, and ${why}.` };
    else sent.push([askRequestId(asker.sessionRef, callId), key, question]);
  }
  const pending = Object.fromEntries(sent.map(([, key, question]) => [key, question]));
  const settled =
    sent.length === 0
      ? { answers: {}, failures: {} }
      : await sendAndWait(asker, callId, roundId, nextRoundId, sent, pending);
  return { ...settled, failures: { ...refused, ...settled.failures } };
}

async function sendAndWait(
  asker: LegacyAsker,
  callId: string,
  roundId: string,
  nextRoundId: string,
  sent: readonly [id: string, key: string, question: InputRequest][],
  pending: Record<string, InputRequest>,
): Promise<RoundOutcome> {
  let waited: Waited;
  try {
    const cancelled = await asker.store.open(
      callId,
      roundId,
      sent.map(([id]) => id),
      Date.now() + asker.timeoutMs + ROW_MARGIN_MS,
    );
    if (cancelled !== null) return failAll(pending, () => ({ code: "cancelled", message: cancelled }));
    for (const [id, , question] of sent)
      asker.send({ jsonrpc: "2.0", id, method: question.method, params: question.params });
    waited = await waitAnswers(asker, callId, nextRoundId);
  } catch (error) {
    // The ledger shard cannot be reached: the call ends busy, as any call whose storage is overloaded.
    if (error instanceof DurableUnavailable) return failAll(pending, () => ({ code: "busy", message: error.message }));
    throw error;
  }
  switch (waited.kind) {
    case "timeout": {
      const seconds = Math.round(asker.timeoutMs / 100) / 10;
      return failAll(pending, (what) => ({
        code: "timeout",
        message: `The MCP client did not answer ${what} within ${seconds} s.`,
      }));
    }
    case "gone":
      return failAll(
        pending,
        (what) => ({
          code: "cancelled",
          message: `The MCP client closed the request while ${what} waited for its answer.`,
        }),
        true,
      );
    case "cancelled":
      return failAll(pending, () => ({ code: "cancelled", message: waited.reason }));
  }
  const outcome: RoundOutcome = { answers: {}, failures: {} };
  for (const [id, key, question] of sent) {
    const read = fromResponse(waited.state.answers[id]!, questionName(key, question));
    if ("answer" in read) outcome.answers[key] = read.answer;
    else outcome.failures[key] = read.failure;
  }
  return outcome;
}

/**
 * The round's answers, unless with the answers so far they pass the bound of a call's
 * answers: then each is a failure saying so.
 */
function withinLimit(responses: Record<string, JsonValue>, outcome: RoundOutcome): Record<string, JsonValue> {
  const tooLarge = answersOverLimit(JSON.stringify({ ...responses, ...outcome.answers }).length);
  if (!tooLarge) return outcome.answers;
  for (const key of Object.keys(outcome.answers))
    outcome.failures[key] = { code: "tool_error", message: `${tooLarge}.` };
  return {};
}

/**
 * A tools/call of a legacy session whose client can be asked: round after round, until one ends
 * without asking (or asks what the client cannot answer: that round's result stands, as it would
 * without asking). `run` makes one round; `callId` is the call's own id (the first round's).
 */
export async function runAsking(callId: string, run: RunRound, asker: LegacyAsker): Promise<CallResult> {
  const askable = askableBy(asker.flags);
  const responses: Record<string, JsonValue> = {};
  const failures: Record<string, AskFailure> = {};
  let roundId = callId;
  let signal = asker.signal;
  let asked = false;
  try {
    for (let round = 1; ; round++) {
      const running = run(roundId, { responses: { ...responses }, ...askable, failures: { ...failures } }, signal);
      // After the client left, the round that records why runs beyond the request.
      if (signal !== asker.signal) asker.waitUntil?.(running);
      const result = await running;
      const questions = questionsOf(result, askable);
      if (!questions || round > MAX_ASK_ROUNDS) return result;
      const nextRoundId = roundCallId(callId, round + 1);
      asked = true;
      const outcome =
        round === MAX_ASK_ROUNDS
          ? failAll(questions, (what) => ({
              code: "tool_error",
              message:
                `The tool asked ${what} after ${MAX_ASK_ROUNDS} rounds of questions; ` +
                `an MCP call is asked at most ${MAX_ASK_ROUNDS}.`,
            }))
          : await askRound(asker, callId, roundId, nextRoundId, questions);
      Object.assign(responses, withinLimit(responses, outcome));
      Object.assign(failures, outcome.failures);
      if (outcome.gone) signal = new AbortController().signal;
      roundId = nextRoundId;
    }
  } finally {
    if (asked) {
      // Late answers are refused from now on; the shard's alarm drops the row anyway if this fails.
      const closing = asker.store.close(callId).catch(() => undefined);
      asker.waitUntil?.(closing);
    }
  }
}
