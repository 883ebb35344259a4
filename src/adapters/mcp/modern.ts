import { toolError } from "../../errors";
import { RpcCode, SESSION_REFUSAL_CODES } from "../../mcp/errors";
import { encodeHeaderValue, MCP_HEADERS, mirroredName } from "../../mcp/headers";
import type { RequestMethod } from "../../mcp/messages";
import { META_KEYS, metaOf, TASKS_EXTENSION } from "../../mcp/meta";
import type { ModernVersion } from "../../mcp/versions";
import { upstreamFailure } from "../http-response";
import { maskerFor } from "../upstream";
import { eraMismatch, mutualVersion } from "./era";
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
} from "./wire";

/**
 * The 2026-07-28 era: no session and no handshake. Every request carries the protocol version,
 * toolgate's identity and capabilities in `_meta`, and the MCP-Protocol-Version, Mcp-Method and
 * Mcp-Name headers; a tool's `x-mcp-header` parameters come as extra headers from the caller.
 * Closing a request's stream is its cancellation (no notifications/cancelled on HTTP).
 */

/** What toolgate can do for a 2026 server: be handed tasks (it polls them); no sampling, elicitation or roots. */
export const CLIENT_CAPABILITIES = { extensions: { [TASKS_EXTENSION]: {} } };

/** A 2026 request's `_meta`: the revision, toolgate's identity and the capabilities it declares. */
export function requestMeta(version: ModernVersion, capabilities: Record<string, unknown>): Record<string, unknown> {
  return {
    [META_KEYS.protocolVersion]: version,
    [META_KEYS.clientInfo]: CLIENT_INFO,
    [META_KEYS.clientCapabilities]: capabilities,
  };
}

/** MCP-Protocol-Version, Mcp-Method and, where the method names something, Mcp-Name: what the body says. */
export function setStandardHeaders(
  headers: Headers,
  version: ModernVersion,
  method: RequestMethod,
  params: Record<string, unknown>,
): void {
  headers.set(MCP_HEADERS.protocolVersion, version);
  headers.set(MCP_HEADERS.method, method);
  const name = mirroredName(method, params);
  if (typeof name === "string") headers.set(MCP_HEADERS.name, encodeHeaderValue(name));
}

export interface ModernChannel {
  request(
    method: RequestMethod,
    params: Record<string, unknown>,
    ctx: McpCallContext,
    headers?: Record<string, string>,
  ): Promise<unknown>;
  listen(ctx: McpCallContext): Promise<void>;
}

export function createModernChannel(options: McpClientOptions, era: { version: ModernVersion }): ModernChannel {
  let nextId = 1;

  function envelope(
    method: RequestMethod,
    params: Record<string, unknown>,
    ctx: McpCallContext,
    extra: Record<string, string>,
  ) {
    const id = nextId++;
    const progressToken = ctx.progress ? id : undefined;
    const meta = {
      ...metaOf(params),
      ...requestMeta(era.version, CLIENT_CAPABILITIES),
      ...(progressToken === undefined ? {} : { progressToken }),
    };
    const { url, headers } = prepare(options, ctx, "application/json, text/event-stream");
    setStandardHeaders(headers, era.version, method, params);
    for (const [key, value] of Object.entries(extra)) headers.set(key, value);
    return { id, progressToken, url, headers, message: { id, method, params: { ...params, _meta: meta } } };
  }

  /** A refused request (4xx): another version to try, a modern error, or the sign of a 2025 server. */
  async function refusal(
    response: Response,
    method: string,
    ctx: McpCallContext,
  ): Promise<{ retryWith: ModernVersion } | Error> {
    if (
      response.status < 400 ||
      response.status >= 500 ||
      response.status === 401 ||
      response.status === 403 ||
      response.status === 429
    ) {
      return upstreamFailure(response, maskerFor(ctx.secrets), options.label);
    }
    const { error, text } = await rpcErrorOf(response);
    const version = error?.code === RpcCode.unsupportedVersion ? mutualVersion(error) : undefined;
    if (version !== undefined && version !== era.version) return { retryWith: version };
    if (error === undefined || (typeof error.code === "number" && SESSION_REFUSAL_CODES.has(error.code))) {
      const excerpt = maskerFor(ctx.secrets).text(text.slice(0, 200));
      return eraMismatch(
        toolError(
          "upstream_error",
          `${options.label} refused ${method} as a 2026-07-28 request (HTTP ${response.status}): ${excerpt}`,
        ),
      );
    }
    return rpcFailure(options.label, method, error);
  }

  return {
    async request(method, params, ctx, extra = {}) {
      for (let attempt = 1; ; attempt++) {
        const { id, progressToken, url, headers, message } = envelope(method, params, ctx, extra);
        const response = await postMessage(options, message, headers, url, ctx);
        if (!response.ok) {
          const refused = await refusal(response, method, ctx);
          if (refused instanceof Error) throw refused;
          if (attempt > 1)
            throw toolError("upstream_error", `${options.label} refused protocol version ${era.version} too`, {
              retryable: false,
            });
          era.version = refused.retryWith;
          continue;
        }
        const hooks = {
          ctx,
          ...(progressToken === undefined ? {} : { progressToken }),
          ...(options.onNotification ? { onNotification: options.onNotification } : {}),
        };
        const answer = await answerTo(options, response, id, method, hooks);
        if (answer.error !== undefined) throw rpcFailure(options.label, method, answer.error);
        return answer.result;
      }
    },
    async listen(ctx) {
      const { url, headers, message } = envelope(
        "subscriptions/listen",
        { notifications: { toolsListChanged: true } },
        ctx,
        {},
      );
      headers.set("content-type", "application/json");
      const response = await ctx.fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", ...message }),
        signal: ctx.signal,
      });
      if (!response.ok || !response.body) return void (await response.body?.cancel());
      await drain(response, { ctx, ...(options.onNotification ? { onNotification: options.onNotification } : {}) });
    },
  };
}
