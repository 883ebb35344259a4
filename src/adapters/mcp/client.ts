import { toolError } from "../../errors";
import type { RequestMethod } from "../../mcp/messages";
import { MODERN_VERSIONS, type ModernVersion } from "../../mcp/versions";
import { joinShared, STARTER_LEFT, startShared, type SharedStart } from "./shared-start";
import { classifyProbe, isEraMismatch, knownEras, type ProbeOutcome, type ServerEra } from "./era";
import { createLegacySession } from "./legacy";
import { createModernChannel, requestMeta, setStandardHeaders, type ModernChannel } from "./modern";
import { answerTo, postMessage, prepare, rpcErrorOf, type McpCallContext, type McpClientOptions } from "./wire";

export type { McpCallContext, McpClientOptions } from "./wire";

/**
 * A minimal dual-era MCP client over Streamable HTTP, on fetch alone (hand-written rather than the
 * SDK's Client to keep the Worker bundle and its cold start small). It speaks 2026-07-28 to servers
 * that offer it and 2025-11-25 (down to 2024-11-05) to the rest: the first request to an endpoint
 * probes with server/discover (era.ts), the verdict is kept for the isolate's lifetime, and a
 * request the server refuses as being of the other era (it did not run) probes again and is sent
 * once more in the era found.
 */
export interface McpClient {
  /** The server's era, probing on first use. */
  era(ctx: McpCallContext): Promise<ServerEra>;
  /** The capabilities the server declared (server/discover, or initialize for a 2025 server). */
  capabilities(ctx: McpCallContext): Promise<Record<string, unknown>>;
  /** One request; answers its result (any resultType: the caller reads it). `headers` are 2026 Mcp-Param-* headers. */
  request(
    method: RequestMethod,
    params: Record<string, unknown>,
    ctx: McpCallContext,
    headers?: Record<string, string>,
  ): Promise<unknown>;
  /** Hold a notification stream open (2025: GET; 2026: subscriptions/listen) until it ends or ctx.signal aborts. */
  listen(ctx: McpCallContext): Promise<void>;
}

export function createMcpClient(options: McpClientOptions): McpClient {
  const legacy = createLegacySession(options);
  let modern: { era: ServerEra; channel: ModernChannel } | undefined;
  let probing: SharedStart<ServerEra> | undefined;

  async function probeOnce(version: ModernVersion, ctx: McpCallContext): Promise<ProbeOutcome> {
    const { url, headers } = prepare(options, ctx, "application/json, text/event-stream");
    setStandardHeaders(headers, version, "server/discover", {});
    const params = { _meta: requestMeta(version, {}) };
    const response = await postMessage(options, { id: 0, method: "server/discover", params }, headers, url, ctx);
    if (!response.ok) {
      const { error } = await rpcErrorOf(response);
      return { kind: "http-error", status: response.status, ...(error ? { error } : {}) };
    }
    const answer = await answerTo(options, response, 0, "server/discover", { ctx });
    return answer.error === undefined
      ? { kind: "result", result: answer.result }
      : { kind: "rpc-error", error: answer.error };
  }

  async function probe(ctx: McpCallContext): Promise<ServerEra> {
    let version: ModernVersion = MODERN_VERSIONS[0];
    for (let attempt = 1; attempt <= 2; attempt++) {
      const verdict = classifyProbe(await probeOnce(version, ctx));
      if (verdict.kind === "modern" || verdict.kind === "legacy") return verdict;
      if (verdict.kind === "no-evidence") {
        throw toolError("upstream_error", `${options.label} answered server/discover with HTTP ${verdict.status}`, {
          status: verdict.status,
          retryable: verdict.status >= 500,
        });
      }
      version = verdict.version;
    }
    throw toolError("upstream_error", `${options.label} refused every protocol version toolgate offered`, {
      retryable: false,
    });
  }

  /** The server's era: known, or probed by this call or one it joins (probed again if that one left). */
  async function eraOf(ctx: McpCallContext): Promise<ServerEra> {
    for (;;) {
      const known = knownEras.get(options.url);
      if (known) return known;
      if (!probing) {
        const clear = () => probing === start && (probing = undefined);
        const start: SharedStart<ServerEra> = startShared(
          ctx.signal,
          () => probe(ctx).then((era) => (knownEras.set(options.url, era), era)),
          clear,
        );
        start.promise.then(clear, () => undefined); // found: later calls read knownEras
        probing = start;
      }
      const current = probing;
      const era = await joinShared(current, ctx.signal);
      if (era !== STARTER_LEFT) return era;
      if (probing === current) probing = undefined;
    }
  }

  function channelFor(era: Extract<ServerEra, { kind: "modern" }>): ModernChannel {
    if (modern?.era !== era) modern = { era, channel: createModernChannel(options, era) };
    return modern.channel;
  }

  return {
    era: eraOf,
    async capabilities(ctx) {
      const era = await eraOf(ctx);
      return era.kind === "modern" ? era.capabilities : legacy.capabilities(ctx);
    },
    async request(method, params, ctx, headers) {
      for (let attempt = 1; ; attempt++) {
        const era = await eraOf(ctx);
        try {
          return era.kind === "modern"
            ? await channelFor(era).request(method, params, ctx, headers)
            : await legacy.request(method, params, ctx);
        } catch (error) {
          if (!isEraMismatch(error) || attempt > 1) throw error;
          if (knownEras.get(options.url) === era) knownEras.delete(options.url); // the server changed era: probe again
        }
      }
    },
    async listen(ctx) {
      const era = await eraOf(ctx);
      return era.kind === "modern" ? channelFor(era).listen(ctx) : legacy.listen(ctx);
    },
  };
}
