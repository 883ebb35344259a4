import { toolError } from "../../errors";
import { isPlainObject } from "../../json";
import { RpcCode } from "../../mcp/errors";
import { MCP_HEADERS } from "../../mcp/headers";
import type { NotificationMethod, RequestMethod } from "../../mcp/messages";
import { isLegacyVersion, LATEST_LEGACY_VERSION, type LegacyVersion } from "../../mcp/versions";
import { upstreamFailure } from "../http-response";
import { maskerFor } from "../upstream";
import { eraMismatch, isModernEvidence } from "./era";
import { refusedSession, sessionEndOf } from "./session-end";
import { joinShared, STARTER_LEFT, startShared, type SharedStart } from "./shared-start";
import {
  answerTo,
  CLIENT_INFO,
  drain,
  postMessage,
  prepare,
  rpcErrorOf,
  rpcFailure,
  type McpCallContext,
  type McpClientOptions,
  type Message,
} from "./wire";

/**
 * The 2025 (initialize-based) era: initialize → notifications/initialized → requests under the
 * session id the server assigned, one session per server and isolate, shared by every caller of
 * the tenant there (see docs/adapters.md, Remote sessions).
 *
 * A session ends without notice when the server restarts or expires it: it answers 404 (or 400
 * naming the session), or the connection breaks. Either way the next request starts a new session.
 * The request in flight is sent again, once, only when that cannot repeat work: it was not sent yet
 * (starting the session failed), the server refused the session (nothing ran), or it is a listing.
 * A tools/call whose connection broke may have run, so it fails with a retryable upstream_error and
 * the pipeline decides (idempotent tools).
 */

/** toolgate's initialize: the newest legacy revision, no capabilities (it answers no server request), its name. */
export const INITIALIZE_PARAMS = { protocolVersion: LATEST_LEGACY_VERSION, capabilities: {}, clientInfo: CLIENT_INFO };

/** The revision a server's initialize result settles on, when toolgate speaks it. */
export function settledVersion(result: unknown): LegacyVersion | undefined {
  const offered = isPlainObject(result) ? result.protocolVersion : undefined;
  return isLegacyVersion(offered) ? offered : undefined;
}

/** Requests that repeat no work when sent twice (initialize is never repeated: a new session is started instead). */
const REPEATABLE: ReadonlySet<RequestMethod> = new Set(["tools/list", "tasks/get"]);

export interface LegacySession {
  request(method: RequestMethod, params: Record<string, unknown>, ctx: McpCallContext): Promise<unknown>;
  /** The capabilities the server declared in its last initialize (undefined before one). */
  capabilities(ctx: McpCallContext): Promise<Record<string, unknown>>;
  listen(ctx: McpCallContext): Promise<void>;
}

export function createLegacySession(options: McpClientOptions): LegacySession {
  let sessionId: string | undefined;
  let version: LegacyVersion | undefined;
  let serverCapabilities: Record<string, unknown> = {};
  let ready: SharedStart<void> | undefined;
  let nextId = 1;

  function headersFor(ctx: McpCallContext, accept: string): { url: string; headers: Headers } {
    const prepared = prepare(options, ctx, accept);
    if (version) prepared.headers.set(MCP_HEADERS.protocolVersion, version);
    if (sessionId) prepared.headers.set(MCP_HEADERS.sessionId, sessionId);
    return prepared;
  }

  async function post(message: Message, ctx: McpCallContext): Promise<Response> {
    const { url, headers } = headersFor(ctx, "application/json, text/event-stream");
    let response = await postMessage(options, message, headers, url, ctx);
    if (response.status === 400) {
      // A server that now speaks only 2026-07-28 refuses 2025 requests with UnsupportedProtocolVersion.
      const { error, text } = await rpcErrorOf(response);
      if (isModernEvidence(error)) throw eraMismatch(rpcFailure(options.label, message.method ?? "a message", error));
      response = new Response(text, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
    if (!response.ok && headers.has(MCP_HEADERS.sessionId)) {
      const checked = await refusedSession(response, options.label);
      if (!(checked instanceof Response)) throw checked;
      response = checked;
    }
    if (!response.ok) throw await upstreamFailure(response, maskerFor(ctx.secrets), options.label);
    return response;
  }

  /**
   * A 2025 server asking the client for sampling, elicitation or roots: toolgate has no one to
   * ask, so it says so at once.
   */
  function refuse(request: Message, ctx: McpCallContext): void {
    const error = {
      code: RpcCode.methodNotFound,
      message: `toolgate cannot answer ${String(request.method)} for a remote server`,
    };
    void post({ id: request.id, error } as Message, { ...ctx, signal: AbortSignal.timeout(5_000) })
      .then((response) => response.body?.cancel())
      .catch(() => undefined);
  }

  async function exchange(
    method: RequestMethod,
    params: Record<string, unknown>,
    ctx: McpCallContext,
  ): Promise<unknown> {
    const id = nextId++;
    const progressToken = ctx.progress ? id : undefined;
    const body =
      progressToken === undefined ? params : { ...params, _meta: { ...(params._meta as object), progressToken } };
    const onAbort = () => void cancel(id, ctx);
    if (method !== "initialize") ctx.signal.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await post({ id, method, params: body }, ctx);
      if (method === "initialize") sessionId = response.headers.get(MCP_HEADERS.sessionId) ?? undefined;
      const hooks = {
        ctx,
        ...(progressToken === undefined ? {} : { progressToken }),
        onRequest: (m: Message) => refuse(m, ctx),
      };
      const answer = await answerTo(options, response, id, method, {
        ...hooks,
        ...(options.onNotification ? { onNotification: options.onNotification } : {}),
      });
      if (answer.error !== undefined) throw rpcFailure(options.label, method, answer.error);
      return answer.result;
    } finally {
      ctx.signal.removeEventListener("abort", onAbort);
    }
  }

  async function notify(
    method: NotificationMethod,
    params: Record<string, unknown>,
    ctx: McpCallContext,
  ): Promise<void> {
    const response = await post({ method, params }, ctx);
    await response.body?.cancel();
  }

  /** Tell the server to stop work the caller gave up on; best effort, on a signal of its own. */
  async function cancel(requestId: number, ctx: McpCallContext): Promise<void> {
    const reason = ctx.signal.reason instanceof Error ? ctx.signal.reason.message : "cancelled by the caller";
    await notify(
      "notifications/cancelled",
      { requestId, reason },
      { ...ctx, signal: AbortSignal.timeout(5_000) },
    ).catch(() => undefined);
  }

  async function initialize(ctx: McpCallContext): Promise<void> {
    sessionId = undefined;
    version = undefined;
    const result = await exchange("initialize", INITIALIZE_PARAMS, ctx);
    version = settledVersion(result);
    if (version === undefined) {
      const offered = isPlainObject(result) ? result.protocolVersion : undefined;
      const message = `${options.label} offers unsupported MCP protocol version ${JSON.stringify(offered)}`;
      throw toolError("upstream_error", message, { retryable: false });
    }
    serverCapabilities = isPlainObject(result) && isPlainObject(result.capabilities) ? result.capabilities : {};
    await notify("notifications/initialized", {}, ctx);
  }

  /** The session, started by this call or joined (started again if its starter left before it was ready). */
  async function session(ctx: McpCallContext): Promise<SharedStart<void>> {
    for (;;) {
      if (!ready) {
        const start: SharedStart<void> = startShared(
          ctx.signal,
          () => initialize(ctx),
          () => ready === start && (ready = undefined),
        );
        ready = start;
      }
      const current = ready;
      if ((await joinShared(current, ctx.signal)) !== STARTER_LEFT) return current;
      if (ready === current) ready = undefined;
    }
  }

  return {
    async request(method, params, ctx) {
      for (let attempt = 1; ; attempt++) {
        let current: SharedStart<void> | undefined;
        let sent = false;
        try {
          current = await session(ctx);
          sent = true;
          return await exchange(method, params, ctx);
        } catch (error) {
          const end = sessionEndOf(error);
          if (end === undefined) throw error;
          if (current && ready === current) ready = undefined; // the next request starts a new session
          // Once more only if the request cannot have run: it was not sent, the server refused the session,
          // or it is a listing.
          const harmless = !sent || end === "refused" || REPEATABLE.has(method);
          if (attempt > 1 || !harmless) throw error;
        }
      }
    },
    async capabilities(ctx) {
      await session(ctx);
      return serverCapabilities;
    },
    async listen(ctx) {
      await session(ctx);
      const { url, headers } = headersFor(ctx, "text/event-stream");
      const response = await ctx.fetch(url, { method: "GET", headers, signal: ctx.signal });
      if (!response.ok || !response.body) return void (await response.body?.cancel());
      await drain(response, { ctx, ...(options.onNotification ? { onNotification: options.onNotification } : {}) });
    },
  };
}
