import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import { createCallTracer } from "../../../src/telemetry/call-tracer";
import type { TraceSpan } from "../../../src/telemetry/span";
import { parseTraceparent } from "../../../src/telemetry/trace-context";
import { defineTool } from "../../../src/tool";
import { egressFor, remote } from "../adapters/mcp-helpers";
import { startV2Server, type V2TestServer } from "../../servers/mcp-v2-server";

/**
 * A traced call of a remote MCP tool, against the official SDK v2 server in each era: the tools/call is a
 * client span (the OpenTelemetry MCP conventions) whose context the message carries in `params._meta`,
 * in the caller's trace, with the HTTP request under it.
 */

const CALLER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const servers = new Map<"modern" | "legacy", V2TestServer>();
beforeAll(async () => {
  for (const era of ["modern", "legacy"] as const) servers.set(era, await startV2Server(era));
});
afterAll(async () => {
  for (const server of servers.values()) await server.close();
});

const toolsCalls = (server: V2TestServer) => server.requests.filter((r) => r.body.method === "tools/call");

describe.each(["modern", "legacy"] as const)("a traced remote MCP call (%s)", (era) => {
  it("sends its tools/call span's traceparent and tracestate in _meta, under the call's attempt", async () => {
    const server = servers.get(era)!;
    const { source } = remote(server.url);
    const tools = await source.tools();
    const parent = parseTraceparent(CALLER, "vendor=x")!;
    const tracer = createCallTracer({ parent });
    const before = toolsCalls(server).length;
    const result = await executeCall(
      { id: `call_${era}`, name: "r_echo", arguments: { text: "hi" } },
      { registry: createRegistry(tools), secrets: {}, fetch: egressFor(server.url), tracer },
    );
    expect(result.ok).toBe(true);
    await tracer.idle();
    const spans = tracer.take();
    const named = (name: string) => spans.filter((span) => span.name === name);
    const [mcpSpan] = named("tools/call echo") as [TraceSpan];
    const [attempt] = named("attempt 1") as [TraceSpan];
    expect(mcpSpan).toMatchObject({
      kind: "client",
      traceId: parent.traceId,
      parentSpanId: attempt.spanId,
      attributes: {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "echo",
        "network.transport": "tcp",
        "server.address": "127.0.0.1",
        "server.port": Number(new URL(server.url).port),
        ...(era === "modern" ? { "mcp.protocol.version": "2026-07-28" } : {}),
      },
    });
    expect(mcpSpan.error).toBeUndefined();
    expect(mcpSpan.endMs).toBeGreaterThanOrEqual(mcpSpan.startMs);

    // The message names the span; its HTTP request is the span's child, its header naming the request.
    const sent = toolsCalls(server).slice(before);
    expect(sent).toHaveLength(1);
    const meta = sent[0]!.body.params!._meta as Record<string, unknown>;
    expect(meta.traceparent).toBe(`00-${parent.traceId}-${mcpSpan.spanId}-01`);
    expect(meta.tracestate).toBe("vendor=x");
    const [post] = named("POST").filter((span) => span.parentSpanId === mcpSpan.spanId);
    expect(post).toBeDefined();
    expect(sent[0]!.headers.traceparent).toBe(`00-${parent.traceId}-${post!.spanId}-01`);
  });

  it("sends no trace context in _meta for a call not traced", async () => {
    const server = servers.get(era)!;
    const { source } = remote(server.url);
    const tools = await source.tools();
    const before = toolsCalls(server).length;
    const result = await executeCall(
      { id: `plain_${era}`, name: "r_echo", arguments: { text: "hi" } },
      { registry: createRegistry(tools), secrets: {}, fetch: egressFor(server.url) },
    );
    expect(result.ok).toBe(true);
    const [sent] = toolsCalls(server).slice(before);
    expect(sent!.body.params!._meta ?? {}).not.toHaveProperty("traceparent");
    expect(sent!.headers.traceparent).toBeUndefined();
  });
});

describe("a span a tool opens (ctx.span)", () => {
  const opener = defineTool({
    name: "opener",
    description: "",
    input: v.object({ fail: v.boolean() }),
    async run({ fail }, ctx) {
      ctx.span?.("rpc one", { "rpc.method": "one" })?.end(fail ? "refused" : undefined);
      ctx.span?.("rpc left open", {}); // never ended: it ends with its attempt
      return "done";
    },
  });

  it("ends failed with its error.type, and one left open ends with its attempt", async () => {
    const tracer = createCallTracer();
    const result = await executeCall(
      { id: "call_open", name: "opener", arguments: { fail: true } },
      { registry: createRegistry([opener]), tracer },
    );
    expect(result.ok).toBe(true);
    await tracer.idle();
    const spans = tracer.take();
    const byName = (name: string) => spans.find((span) => span.name === name)!;
    expect(byName("rpc one")).toMatchObject({
      kind: "client",
      error: "refused",
      attributes: { "error.type": "refused" },
    });
    expect(byName("rpc left open").parentSpanId).toBe(byName("attempt 1").spanId);
    expect(byName("rpc left open").endMs).toBe(byName("attempt 1").endMs);
  });

  it("is undefined for a call not traced", async () => {
    let seen: unknown = "not called";
    const probe = defineTool({
      name: "probe",
      description: "",
      input: v.object({}),
      run: (_args, ctx) => void (seen = ctx.span?.("x", {})),
    });
    await executeCall({ id: "call_probe", name: "probe", arguments: {} }, { registry: createRegistry([probe]) });
    expect(seen).toBeUndefined();
  });
});
