import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolError } from "../../../src/errors";
import type { CallJournal } from "../../../src/journal";
import type { DetachedCall } from "../../../src/runner";
import { executeBatch } from "../../../src/pipeline/batch";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import { createCallTracer } from "../../../src/telemetry/call-tracer";
import type { TraceSpan } from "../../../src/telemetry/span";
import { parseTraceparent } from "../../../src/telemetry/trace-context";
import { defineTool } from "../../../src/tool";
import { latch } from "../../wait";

/** A real upstream on loopback: answers 503 to the first request, then 200; keeps what each received. */
const received: IncomingHttpHeaders[] = [];
const upstream = createServer((request, response) => {
  received.push(request.headers);
  response.writeHead(received.length === 1 ? 503 : 200, { "content-type": "application/json" });
  response.end('{"ok":true}');
});
let origin = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

/** A gated (one at a time), retried tool that fetches the upstream; a 503 is a retryable failure. */
const fetchOnce = defineTool({
  name: "fetch_once",
  description: "",
  input: v.object({ path: v.string() }),
  policy: { readOnly: true, retry: { attempts: 3, baseMs: 1, capMs: 1 }, concurrency: { limit: 1 } },
  async run({ path }, ctx) {
    const response = await ctx.fetch(`${origin}${path}?secret=s3cret`);
    if (!response.ok) throw toolError("upstream_error", `status ${response.status}`, { retryable: true });
    return response.json();
  },
});

/** Holds the gate until released, so the next call waits for its slot. */
const release = latch();
const started = latch();
const holder = defineTool({
  name: "holder",
  description: "",
  input: v.object({}),
  policy: { concurrency: { limit: 1, group: "fetch_once" } },
  async run() {
    started.open();
    await release.opened;
    return "held";
  },
});

const journal: CallJournal = { begin: async () => ({ kind: "new" }), finish: async () => {} };
const byName = (spans: TraceSpan[], name: string) => spans.filter((span) => span.name === name);

describe("call tracer", () => {
  it("gives a gated, retried call its span tree: gate wait, attempts, HTTP requests, ledger writes", async () => {
    const parent = parseTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "vendor=x")!;
    const tracer = createCallTracer({ parent, attributes: { "toolgate.surface": "http", "toolgate.key": "key_1" } });
    const options = { registry: createRegistry([fetchOnce, holder]), journal, tracer };
    const held = executeCall({ id: "call_hold", name: "holder", arguments: {} }, options);
    await started.opened;
    const gated = executeCall({ id: "call_1", name: "fetch_once", arguments: { path: "/x" } }, options);
    release.open();
    const [result] = await Promise.all([gated, held]);
    expect(result.ok).toBe(true);

    const spans = tracer.take();
    expect(tracer.take()).toEqual([]);
    const call = spans.find((span) => span.attributes["gen_ai.tool.call.id"] === "call_1")!;
    expect(call).toMatchObject({
      name: "execute_tool fetch_once",
      traceId: parent.traceId,
      parentSpanId: parent.spanId,
      traceState: "vendor=x",
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "fetch_once",
        "gen_ai.tool.type": "function",
        "toolgate.tenant": "default",
        "toolgate.call.status": "succeeded",
        "toolgate.call.attempts": 2,
        "toolgate.surface": "http",
        "toolgate.key": "key_1",
      },
    });
    const children = spans.filter((span) => span.parentSpanId === call.spanId);
    expect(children.map((span) => span.name).sort()).toEqual(
      ["attempt 1", "attempt 2", "gate_wait", "ledger claim", "ledger record"].sort(),
    );
    const [gate] = byName(children, "gate_wait");
    expect(gate!.attributes).toMatchObject({ "toolgate.gate.granted": true });
    // It waited for the holder's slot: its wait ends after the holder's call started.
    const holderCall = spans.find((span) => span.attributes["gen_ai.tool.call.id"] === "call_hold")!;
    expect(gate!.endMs).toBeGreaterThanOrEqual(holderCall.startMs);
    const [first, second] = [byName(children, "attempt 1")[0]!, byName(children, "attempt 2")[0]!];
    expect(first).toMatchObject({ error: "upstream_error", attributes: { "error.type": "upstream_error" } });
    expect(second.error).toBeUndefined();
    expect(first.endMs).toBeLessThanOrEqual(second.startMs);

    // Each attempt's request is a client span under it, and the upstream got its traceparent.
    const requests = byName(spans, "GET");
    expect(requests.map((span) => span.parentSpanId)).toEqual([first.spanId, second.spanId]);
    expect(requests[0]).toMatchObject({
      kind: "client",
      error: "503",
      attributes: { "http.request.method": "GET", "url.full": `${origin}/x`, "http.response.status_code": 503 },
    });
    expect(received.map((headers) => parseTraceparent(headers.traceparent as string | undefined)?.spanId)).toEqual(
      requests.map((span) => span.spanId),
    );
    expect(received.every((headers) => headers.tracestate === "vendor=x")).toBe(true);
    expect(JSON.stringify(spans)).not.toContain("s3cret");
    // The call's span holds all its children.
    for (const span of children) {
      expect(span.startMs).toBeGreaterThanOrEqual(call.startMs);
      expect(span.endMs).toBeLessThanOrEqual(call.endMs);
    }
  });

  it("keeps a batch's calls in one new trace, and marks failures and approvals", async () => {
    const needsApproval = defineTool({
      name: "wire_money",
      description: "",
      input: v.object({}),
      policy: { approval: "always" },
      run: () => "sent",
    });
    const broken = defineTool({
      name: "broken",
      description: "",
      input: v.object({}),
      run: () => {
        throw new Error("no");
      },
    });
    const tracer = createCallTracer();
    const registry = createRegistry([needsApproval, broken]);
    await executeBatch(
      [
        { id: "a", name: "wire_money", arguments: {} },
        { id: "b", name: "broken", arguments: {} },
      ],
      { registry, journal, tracer },
    );
    const spans = tracer.take();
    const calls = spans.filter((span) => span.name.startsWith("execute_tool "));
    expect(calls).toHaveLength(2);
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([tracer.traceId]));
    expect(calls.every((span) => span.parentSpanId === undefined)).toBe(true);
    const [approval, failure] = calls;
    expect(approval!.attributes).toMatchObject({
      "toolgate.call.status": "pending",
      "toolgate.approval.requested": true,
    });
    expect(approval!.error).toBeUndefined();
    expect(failure!.attributes).toMatchObject({ "toolgate.call.status": "failed", "error.type": "tool_error" });
    expect(failure!.error).toContain("no");
  });

  it("ends a detached call's span when its runner takes it, and names it to the run and the record", async () => {
    const caller = parseTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")!;
    const tracer = createCallTracer({ parent: caller });
    const jobs: DetachedCall[] = [];
    const handing: CallJournal = { ...journal, handOff: async () => ({ owner: "o", release: () => {} }) };
    const later = defineTool({
      name: "later",
      description: "",
      input: v.object({}),
      policy: { execution: "detached" },
      run: () => "done",
    });
    const result = await executeCall(
      { id: "d1", name: "later", arguments: {} },
      {
        registry: createRegistry([later]),
        journal: handing,
        tracer,
        runner: { detach: async (job) => void jobs.push(job) },
      },
    );
    expect(result.record.status).toBe("running");
    // The request's part of the call is over: its spans can be sent (idle() used to wait for ever).
    await tracer.idle();
    const [call] = tracer.take().filter((span) => span.name === "execute_tool later");
    expect(call).toMatchObject({ parentSpanId: caller.spanId, attributes: { "toolgate.call.status": "running" } });
    const named = `00-${caller.traceId}-${call!.spanId}-01`;
    expect(result.record.trace).toBe(named);
    expect(jobs[0]!.traceparent).toBe(named);
  });

  it("hands over a span of what came before the calls, under the caller's span", () => {
    const caller = parseTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")!;
    const tracer = createCallTracer({ parent: caller });
    tracer.addSpan("approval_wait", 1_000, 5_000, { "toolgate.wait": "approval" });
    expect(tracer.take()).toEqual([
      expect.objectContaining({
        name: "approval_wait",
        traceId: caller.traceId,
        parentSpanId: caller.spanId,
        startMs: 1_000,
        endMs: 5_000,
        attributes: { "toolgate.wait": "approval" },
      }),
    ]);
    expect(tracer.take()).toEqual([]);
  });

  it("keeps at most maxSpans and counts the rest", async () => {
    const tracer = createCallTracer({ maxSpans: 3 });
    const registry = createRegistry([holder]);
    const calls = Array.from({ length: 3 }, (_, i) => ({ id: `c${i}`, name: "nope", arguments: {} }));
    await executeBatch(calls, { registry, journal, tracer });
    // Unknown tools: each call is its span and its record's write (it is rejected before any claim).
    expect(tracer.take()).toHaveLength(3);
    expect(tracer.dropped).toBe(3);
  });
});
