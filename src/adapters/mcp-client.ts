import { toolError } from "../errors";
import { isPlainObject } from "../json";
import type { Progress } from "../tool";
import type { AuthDeclaration } from "./declarations";
import { applyAuth } from "./http-request";
import { upstreamFailure } from "./http-response";
import { endsSession, refusedSession, sessionEndOf } from "./mcp-session-end";
import { networkFailure } from "./network-failure";
import { readSse } from "./sse";
import { fetchUpstream, maskerFor, type UpstreamGate } from "./upstream";

/**
 * A minimal MCP client over Streamable HTTP, on fetch alone: initialize → notifications/initialized
 * → requests, with the session id, JSON or SSE answers, progress and cancellation. Hand-written
 * rather than the SDK's Client to keep the Worker bundle and its cold start small.
 *
 * A session ends without notice when the server restarts or expires it: it answers 404 (or 400
 * naming the session), or the connection breaks. Either way the next request starts a new session.
 * The request in flight is sent again, once, only when that cannot repeat work: it was not sent yet
 * (starting the session failed), the server refused the session (nothing ran), or it is a listing.
 * A tools/call whose connection broke may have run, so it fails with a retryable upstream_error and
 * the pipeline decides (idempotent tools).
 */

export const PROTOCOL_VERSION = "2025-06-18";
const SUPPORTED_VERSIONS = new Set(["2025-06-18", "2025-03-26", "2024-11-05"]);

/** What each exchange runs with: the caller's egress-checked fetch, signal and secrets. */
export interface McpCallContext {
  fetch: typeof fetch;
  signal: AbortSignal;
  secrets: Readonly<Record<string, string>>;
  progress?(update: Progress): void;
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

type Message = { id?: unknown; method?: string; params?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };
/** Requests that repeat no work when sent twice (initialize is never repeated: a new session is started instead). */
const REPEATABLE = new Set(["tools/list"]);

/** The JSON-RPC messages of an event stream; events whose data is not JSON are skipped. */
async function* messagesOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Message> {
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

export interface McpClient {
  request(method: string, params: Record<string, unknown>, ctx: McpCallContext): Promise<unknown>;
  /** Hold the server's GET event stream open and dispatch its notifications until it ends or ctx.signal aborts. */
  listen(ctx: McpCallContext): Promise<void>;
}

export function createMcpClient(options: McpClientOptions): McpClient {
  let sessionId: string | undefined;
  let version: string | undefined;
  let ready: Promise<void> | undefined;
  let nextId = 1;

  function prepare(ctx: McpCallContext, accept: string): { url: string; headers: Headers } {
    const url = new URL(options.url);
    const headers = new Headers({ accept });
    if (version) headers.set("mcp-protocol-version", version);
    if (sessionId) headers.set("mcp-session-id", sessionId);
    if (options.auth) applyAuth(options.auth, url, headers, ctx.secrets, options.label);
    return { url: url.href, headers };
  }

  async function post(message: Message & { jsonrpc: "2.0" }, ctx: McpCallContext): Promise<Response> {
    const { url, headers } = prepare(ctx, "application/json, text/event-stream");
    headers.set("content-type", "application/json");
    const init = { method: "POST", headers, body: JSON.stringify(message) };
    let response = await fetchUpstream(ctx, options.gate, options.maxWaitMs ?? 30_000, url, init).catch((error: unknown) => {
      throw lost(error, ctx, `did not answer ${message.method ?? "a message"}`);
    });
    if (!response.ok && headers.has("mcp-session-id")) {
      const checked = await refusedSession(response, options.label);
      if (!(checked instanceof Response)) throw checked;
      response = checked;
    }
    if (!response.ok) throw await upstreamFailure(response, maskerFor(ctx.secrets), options.label);
    return response;
  }

  /** A network fault as a retryable upstream_error that also ends the session (the server may have restarted). */
  function lost(error: unknown, ctx: McpCallContext, what: string): unknown {
    const failure = networkFailure(error, ctx.signal, maskerFor(ctx.secrets), `${options.label} ${what}`);
    return failure === error ? error : endsSession(failure as Error, "lost");
  }

  function dispatch(message: Message, ctx: McpCallContext, progressToken?: number): void {
    if (typeof message.method !== "string" || "id" in message) return; // server requests (sampling …) are not supported
    const params = isPlainObject(message.params) ? message.params : {};
    if (message.method === "notifications/progress") {
      if (progressToken !== undefined && params.progressToken === progressToken && typeof params.progress === "number") {
        ctx.progress?.({ progress: params.progress, ...(typeof params.total === "number" ? { total: params.total } : {}), ...(typeof params.message === "string" ? { message: params.message } : {}) });
      }
      return;
    }
    options.onNotification?.(message.method, message.params);
  }

  function answer(message: Message, method: string): unknown {
    if (message.error !== undefined) {
      const { code, message: text } = message.error ?? {};
      throw toolError("upstream_error", `${options.label} answered ${method} with JSON-RPC error ${String(code)}: ${String(text)}`, { retryable: false });
    }
    return message.result;
  }

  async function exchange(method: string, params: Record<string, unknown>, ctx: McpCallContext): Promise<unknown> {
    const id = nextId++;
    const progressToken = ctx.progress ? id : undefined;
    const body = progressToken === undefined ? params : { ...params, _meta: { ...(params._meta as object), progressToken } };
    const onAbort = () => void cancel(id, ctx);
    if (method !== "initialize") ctx.signal.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await post({ jsonrpc: "2.0", id, method, params: body }, ctx);
      if (method === "initialize") sessionId = response.headers.get("mcp-session-id") ?? undefined;
      return await read(response, id, method, ctx, progressToken).catch((error: unknown) => {
        throw error instanceof SyntaxError ? error : lost(error, ctx, `broke off its answer to ${method}`);
      });
    } finally {
      ctx.signal.removeEventListener("abort", onAbort);
    }
  }

  async function read(response: Response, id: number, method: string, ctx: McpCallContext, progressToken: number | undefined): Promise<unknown> {
    if (!/^text\/event-stream/i.test(response.headers.get("content-type") ?? "")) {
      const parsed = (await response.json()) as Message | Message[];
      const messages = Array.isArray(parsed) ? parsed : [parsed];
      for (const message of messages) if (message.id === id) return answer(message, method);
      throw toolError("upstream_error", `${options.label} sent no answer to ${method}`);
    }
    for await (const message of messagesOf(response.body as ReadableStream<Uint8Array>)) {
      if (message.id === id && ("result" in message || "error" in message)) return answer(message, method);
      dispatch(message, ctx, progressToken);
    }
    // A stream that ends unanswered: the server went away (a restart) with the request perhaps run.
    throw endsSession(toolError("upstream_error", `${options.label} closed the stream before answering ${method}`), "lost");
  }

  async function notify(method: string, params: Record<string, unknown>, ctx: McpCallContext): Promise<void> {
    const response = await post({ jsonrpc: "2.0", method, params }, ctx);
    await response.body?.cancel();
  }

  /** Tell the server to stop work the caller gave up on; best effort, on a signal of its own. */
  async function cancel(requestId: number, ctx: McpCallContext): Promise<void> {
    const reason = ctx.signal.reason instanceof Error ? ctx.signal.reason.message : "cancelled by the caller";
    await notify("notifications/cancelled", { requestId, reason }, { ...ctx, signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
  }

  async function initialize(ctx: McpCallContext): Promise<void> {
    sessionId = undefined;
    version = undefined;
    const result = await exchange("initialize", { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "toolgate", version: "0.1.0" } }, ctx);
    const offered = isPlainObject(result) ? result.protocolVersion : undefined;
    if (typeof offered !== "string" || !SUPPORTED_VERSIONS.has(offered)) {
      throw toolError("upstream_error", `${options.label} offers unsupported MCP protocol version ${JSON.stringify(offered)}`, { retryable: false });
    }
    version = offered;
    await notify("notifications/initialized", {}, ctx);
  }

  function session(ctx: McpCallContext): Promise<void> {
    ready ??= initialize(ctx).catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  }

  return {
    async request(method, params, ctx) {
      for (let attempt = 1; ; attempt++) {
        const current = session(ctx);
        let sent = false;
        try {
          await current;
          sent = true;
          return await exchange(method, params, ctx);
        } catch (error) {
          const end = sessionEndOf(error);
          if (end === undefined) throw error;
          if (ready === current) ready = undefined; // the next request starts a new session
          // Once more only if the request cannot have run: it was not sent, the server refused the session, or it is a listing.
          const harmless = !sent || end === "refused" || REPEATABLE.has(method);
          if (attempt > 1 || !harmless) throw error;
        }
      }
    },
    async listen(ctx) {
      await session(ctx);
      const { url, headers } = prepare(ctx, "text/event-stream");
      const response = await ctx.fetch(url, { method: "GET", headers, signal: ctx.signal });
      if (response.status === 405 || !response.ok || !response.body) return void (await response.body?.cancel());
      try {
        for await (const message of messagesOf(response.body)) dispatch(message, ctx);
      } catch (error) {
        if (!ctx.signal.aborted) throw error; // aborting is how a listener is stopped
      }
    },
  };
}
