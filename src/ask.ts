import { toolError, type ErrorCode } from "./errors";
import type { JsonObject, JsonValue } from "./json";

/**
 * Asking the person (or client) who made a call for something mid-call: ctx.ask(key, request). The
 * request is one an MCP client answers (elicitation/create, sampling/createMessage, roots/list).
 *
 * A call that asks is not held open waiting: when the answer is not there yet, the call ends asking
 * (its record ends `input_required`, listing every question asked so far), and the caller calls again
 * with the answers, keyed as asked. The tool then runs again from the start and each ctx.ask(key)
 * answers at once. So a tool asks before it does anything it must not do twice, and asks with keys
 * that are the same on every run (several questions at once: ask them together, then await them).
 */

export const ASK_METHODS = ["elicitation/create", "sampling/createMessage", "roots/list"] as const;
export type AskMethod = (typeof ASK_METHODS)[number];

export interface InputRequest {
  method: AskMethod;
  params: JsonObject;
}

/** Answers the caller gave, by the key the tool asked with. */
export type InputResponses = Readonly<Record<string, JsonValue>>;

/**
 * All the answers one call holds at once, in characters of JSON, however they came: a task's answers
 * kept beside its record (tasks/update, POST /v1/calls/:id/input), a legacy MCP client's responses over
 * a call's rounds (each one alone too), the answers a 2026 requestState carries. Answers that would
 * pass it are refused, never cut: a tool reads every answer whole or learns why it has none.
 */
export const MAX_CALL_ANSWERS_CHARS = 64 * 1024;

/** Why answers of this JSON length cannot be kept (naming the limit), or undefined when they fit. */
export function answersOverLimit(chars: number, what = "The answers to this call"): string | undefined {
  if (chars <= MAX_CALL_ANSWERS_CHARS) return undefined;
  return (
    `${what} would take ${chars} characters of JSON, ` +
    `over the limit of ${MAX_CALL_ANSWERS_CHARS} characters for all of one call's answers`
  );
}

/** A key a question is asked under: short, and safe in JSON and logs. */
export const ASK_KEY_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The error a call ends with while a question waits for its answer (its record: `input_required`). */
export function inputRequiredError(tool: string, keys: readonly string[]) {
  return toolError(
    "input_required",
    `Tool "${tool}" needs input from its caller (${keys.join(", ")}): call it again with the answers.`,
    { retryable: false },
  );
}

/** Why a question that was asked gets no answer: ctx.ask rejects with it (a ToolError of this code and message). */
export interface AskFailure {
  code: ErrorCode;
  message: string;
}

/** What the host tells the call about its caller: the answers so far and what the caller can be asked. */
export interface AskChannel {
  responses: InputResponses;
  /** Methods the caller declared it answers; a question of another method is never asked. */
  methods: ReadonlySet<AskMethod>;
  /**
   * The elicitation modes the caller declared (MCP's elicitation.form / elicitation.url); absent, form
   * only, as an empty `elicitation: {}` means. An elicitation of another mode is never asked.
   */
  elicitationModes?: ReadonlySet<ElicitationMode>;
  /**
   * Questions that were asked and will get no answer (the caller answered with an error, went away,
   * or did not answer in time), by key: ctx.ask rejects with the failure, approval: "user" denies.
   */
  failures?: Readonly<Record<string, AskFailure>>;
  /**
   * The caller answers later, on this same call (an MCP task): a call that asks waits in its record
   * (`awaiting_input`) instead of ending, and its host runs it again with the answers. A detached
   * call's questions, and approval: "user", are then asked in its detached run, not in the request.
   */
  waits?: boolean;
  /**
   * approval: "user" parks the call for its caller's decision (an approval it gives apart, like an
   * admin's) instead of asking it: an HTTP caller, which has its own route for that.
   */
  parksUserApproval?: boolean;
}

/** Can a call whose questions are these wait for their answers (every one a question the caller answers)? */
export function canWaitFor(
  channel: AskChannel | undefined,
  requests: Readonly<Record<string, InputRequest>> | undefined,
): boolean {
  if (!channel?.waits || !requests) return false;
  const asked = Object.values(requests);
  return asked.length > 0 && asked.every((request) => canBeAsked(channel, request));
}

export type ElicitationMode = "form" | "url";
const FORM_ONLY: ReadonlySet<ElicitationMode> = new Set(["form"]);

/** An elicitation's mode: "url" when it says so, else "form" (a request without `mode` is form mode). */
export const elicitationModeOf = (request: InputRequest): ElicitationMode =>
  request.params.mode === "url" ? "url" : "form";

/** Is this a question the caller declared it answers: its method, and for an elicitation its mode too? */
export function canBeAsked(channel: AskChannel | undefined, request: InputRequest): boolean {
  if (!channel?.methods.has(request.method)) return false;
  return (
    request.method !== "elicitation/create" || (channel.elicitationModes ?? FORM_ONLY).has(elicitationModeOf(request))
  );
}

/** Does the caller answer a form-mode elicitation (what approval: "user" asks)? */
export const answersForms = (channel: AskChannel | undefined): boolean =>
  canBeAsked(channel, { method: "elicitation/create", params: {} });

/** A question's kind as a message names it: its method, and "in URL mode" for a URL-mode elicitation. */
export const askedKind = (request: InputRequest): string =>
  request.method === "elicitation/create" && elicitationModeOf(request) === "url"
    ? `${request.method} in URL mode`
    : request.method;
