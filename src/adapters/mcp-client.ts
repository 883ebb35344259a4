import { toolError } from "../errors";
import { isPlainObject } from "../json";
import type { Progress } from "../tool";
import type { AuthDeclaration } from "./declarations";
import { applyAuth } from "./http-request";
import { upstreamFailure } from "./http-response";
import { readSse } from "./sse";
import { fetchUpstream, maskerFor, type UpstreamGate } from "./upstream";

/**
 * A minimal MCP client over Streamable HTTP, on fetch alone: initialize → notifications/initialized
 * → requests, with the session id, JSON or SSE answers, progress and cancellation. Hand-written
 * rather than the SDK's Client to keep the Worker bundle and its cold start small.
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
const EXPIRED = Symbol("session expired");

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
    const response = await fetchUpstream(ctx, options.gate, options.maxWaitMs ?? 30_000, url, { method: "POST", headers, body: JSON.stringify(message) });
    if (response.status === 404 && sessionId && message.method !== "initialize") {
      await response.body?.cancel();
      throw EXPIRED;
    }
    if (!response.ok) throw await upstreamFailure(response, maskerFor(ctx.secrets), options.label);
    return response;
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
      throw toolError("upstream_error", `${options.label} closed the stream before answering ${method}`);
    } finally {
      ctx.signal.removeEventListener("abort", onAbort);
    }
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
      await session(ctx);
      try {
        return await exchange(method, params, ctx);
      } catch (error) {
        if (error !== EXPIRED) throw error;
        ready = undefined; // the server forgot the session: start a new one, once
        await session(ctx);
        return exchange(method, params, ctx);
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
