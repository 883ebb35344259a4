import { toolError } from "../../errors";
import { isPlainObject } from "../../json";
import { MISSING_CAPABILITY_CODES } from "../../mcp/errors";
import type { Progress, ToolContext } from "../../tool";
import type { AuthDeclaration } from "../declarations";
import { applyAuth } from "../http-request";
import { networkFailure } from "../network-failure";
import { readSse } from "../sse";
import { fetchUpstream, maskerFor, readCapped, type UpstreamGate } from "../upstream";
import { endsSession } from "./session-end";

/**
 * What both protocol eras share on Streamable HTTP: one POST per JSON-RPC message, an answer as
 * JSON or as an event stream of notifications ending with the response, and JSON-RPC errors.
 */

/** What each exchange runs with: the caller's egress-checked fetch, signal and secrets. */
export interface McpCallContext {
  fetch: typeof fetch;
  signal: AbortSignal;
  secrets: Readonly<Record<string, string>>;
  progress?(update: Progress): void;
  /** The call's client span for a tools/call (a traced call): its context goes in the message's `_meta`. */
  span?: ToolContext["span"];
}

export interface McpClientOptions {
  url: string;
  /** Names the server in errors. */
  label: string;
  auth?: AuthDeclaration;
  gate?: UpstreamGate;
  maxWaitMs?: number;
  /** Server notifications other than progress (e.g. notifications/tools/list_changed). */
  onNotification?(method: string, params: unknown): void;
}

export type RpcError = { code?: unknown; message?: unknown; data?: unknown };
export type Message = {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: RpcError;
};

export const CLIENT_INFO = { name: "toolgate", version: "0.1.0" } as const;

/** A 4xx body read to classify it (a JSON-RPC error, or not): small, bounded. */
const ERROR_BODY_BYTES = 4096;

/** The JSON-RPC messages of an event stream; events whose data is not JSON are skipped. */
export async function* messagesOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Message> {
  for await (const event of readSse(body)) {
    let message: Message;
    try {
      message = JSON.parse(event.data) as Message;
    } catch {
      continue;
    }
    yield message;
  }
}

/** The endpoint URL and headers of one POST or GET, with the configured credential only. */
export function prepare(
  options: McpClientOptions,
  ctx: McpCallContext,
  accept: string,
): { url: string; headers: Headers } {
  const url = new URL(options.url);
  const headers = new Headers({ accept });
  if (options.auth) applyAuth(options.auth, url, headers, ctx.secrets, options.label);
  return { url: url.href, headers };
}

/** A network fault as a retryable upstream_error that also ends a session (the server may have restarted). */
export function lost(options: McpClientOptions, error: unknown, ctx: McpCallContext, what: string): unknown {
  const failure = networkFailure(error, ctx.signal, maskerFor(ctx.secrets), `${options.label} ${what}`);
  return failure === error ? error : endsSession(failure as Error, "lost");
}

/** POST one JSON-RPC message through the shared upstream gate; network faults become `lost`. */
export async function postMessage(
  options: McpClientOptions,
  message: Message,
  headers: Headers,
  url: string,
  ctx: McpCallContext,
): Promise<Response> {
  headers.set("content-type", "application/json");
  const init = { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", ...message }) };
  return fetchUpstream(ctx, options.gate, options.maxWaitMs ?? 30_000, url, init).catch((error: unknown) => {
    throw lost(options, error, ctx, `did not answer ${message.method ?? "a message"}`);
  });
}

/** The JSON-RPC error in a 4xx body, if it is one; the body is consumed (bounded). */
export async function rpcErrorOf(response: Response): Promise<{ error?: RpcError; text: string }> {
  const { bytes } = await readCapped(response, ERROR_BODY_BYTES).catch(() => ({ bytes: new Uint8Array(0) }));
  const text = new TextDecoder().decode(bytes);
  try {
    const parsed = JSON.parse(text) as unknown;
    if (isPlainObject(parsed) && isPlainObject(parsed.error) && typeof parsed.error.code === "number")
      return { error: parsed.error, text };
  } catch {
    // not JSON
  }
  return { text };
}

/** What reading an answer does with the messages that come before it. */
export interface AnswerHooks {
  ctx: McpCallContext;
  progressToken?: number;
  /** A server-to-client request on the stream (2025 servers only: sampling, elicitation, roots). */
  onRequest?(message: Message): void;
  onNotification?(method: string, params: unknown): void;
}

function dispatch(message: Message, hooks: AnswerHooks): void {
  if (typeof message.method !== "string") return;
  if ("id" in message) return void hooks.onRequest?.(message);
  const params = isPlainObject(message.params) ? message.params : {};
  if (message.method === "notifications/progress") {
    if (
      hooks.progressToken !== undefined &&
      params.progressToken === hooks.progressToken &&
      typeof params.progress === "number"
    ) {
      hooks.ctx.progress?.({
        progress: params.progress,
        ...(typeof params.total === "number" ? { total: params.total } : {}),
        ...(typeof params.message === "string" ? { message: params.message } : {}),
      });
    }
    return;
  }
  hooks.onNotification?.(message.method, message.params);
}

/**
 * The response to request `id` in a JSON or event-stream answer, dispatching what comes before it.
 * A stream that ends unanswered is a lost request (the server went away with it perhaps run).
 */
export async function answerTo(
  options: McpClientOptions,
  response: Response,
  id: number,
  method: string,
  hooks: AnswerHooks,
): Promise<Message> {
  try {
    if (!/^text\/event-stream/i.test(response.headers.get("content-type") ?? "")) {
      const parsed = (await response.json()) as Message | Message[];
      const messages = Array.isArray(parsed) ? parsed : [parsed];
      for (const message of messages) if (message.id === id) return message;
      throw toolError("upstream_error", `${options.label} sent no answer to ${method}`);
    }
    for await (const message of messagesOf(response.body as ReadableStream<Uint8Array>)) {
      if (message.id === id && ("result" in message || "error" in message)) return message;
      dispatch(message, hooks);
    }
  } catch (error) {
    throw error instanceof SyntaxError ? error : lost(options, error, hooks.ctx, `broke off its answer to ${method}`);
  }
  throw endsSession(
    toolError("upstream_error", `${options.label} closed the stream before answering ${method}`),
    "lost",
  );
}

/** Read a listening stream (2025 GET, 2026 subscriptions/listen) until it ends or the signal aborts. */
export async function drain(response: Response, hooks: AnswerHooks): Promise<void> {
  try {
    for await (const message of messagesOf(response.body as ReadableStream<Uint8Array>)) dispatch(message, hooks);
  } catch (error) {
    if (!hooks.ctx.signal.aborted) throw error; // aborting is how a listener is stopped
  }
}

/** A JSON-RPC error answer as an upstream_error naming the server, the method and the error. */
export function rpcFailure(label: string, method: string, error: RpcError | undefined): Error {
  const { code, message, data } = error ?? {};
  if (typeof code === "number" && MISSING_CAPABILITY_CODES.has(code)) {
    const required =
      isPlainObject(data) && data.requiredCapabilities !== undefined
        ? ` (it requires ${JSON.stringify(data.requiredCapabilities)})`
        : "";
    return toolError(
      "upstream_error",
      `${label} needs input toolgate cannot give a remote server (sampling, elicitation or roots) ` +
        `to answer ${method}${required}: ${String(message)}`,
      { retryable: false },
    );
  }
  return toolError(
    "upstream_error",
    `${label} answered ${method} with JSON-RPC error ${String(code)}: ${String(message)}`,
    { retryable: false },
  );
}
