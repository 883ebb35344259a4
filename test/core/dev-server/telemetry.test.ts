import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseTraceparent } from "../../../src/telemetry/trace-context";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../../servers/otlp-receiver";
import { startDevServer, type DevServer } from "../../servers/wrangler-dev";
import { eventually } from "../../wait";

/**
 * OpenTelemetry traces under `wrangler dev` (workerd, real Durable Objects, real sockets): a tenant with
 * `telemetry` sends its calls' spans to an OTLP receiver on 127.0.0.1, in protobuf and in JSON, which
 * decodes them with the official definitions; an HTTP adapter's upstream on 127.0.0.1 answers 503 once,
 * then 200, and keeps the headers it got.
 */

const ADMIN_HASH = "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9"; // dev-admin-key
const CALL_HASH = "06311ac15f2412fb7144a9977924f7a6a137403f1201f5bd0588cc02cd08e33f"; // dev-call-key
const CALLER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

interface Upstream {
  url: string;
  received: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** Fails every first request of a path (503), then answers { "status": "ok" }. */
async function startUpstream(): Promise<Upstream> {
  const received: IncomingHttpHeaders[] = [];
  const seen = new Set<string>();
  const server = createServer((req, res) => {
    received.push(req.headers);
    const first = !seen.has(req.url ?? "");
    seen.add(req.url ?? "");
    res.writeHead(first ? 503 : 200, { "content-type": "application/json" });
    res.end(JSON.stringify({ status: "ok" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

function tenant(name: string, upstream: string, receiver: string, protocol: string) {
  return {
    name,
    tools: ["add", "echo", "pick_option"],
    keys: [
      { name: "admin", hash: ADMIN_HASH, scopes: ["admin"] },
      { name: "app", hash: CALL_HASH, scopes: ["call"] },
    ],
    egress: { allowHttpHosts: ["127.0.0.1"] },
    http: [
      {
        name: "order_status",
        description: "An order's status",
        input: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
        method: "GET",
        url: `${upstream}/orders/{id}`,
        readOnly: true,
        retry: { attempts: 3, baseMs: 1, capMs: 1 },
      },
    ],
    policies: { order_status: { concurrency: { limit: 1 } }, echo: { execution: "detached" } },
    requireApprovalFor: { tools: ["add"] },
    telemetry: { traces: { endpoint: receiver, protocol, timeoutMs: 300, maxQueuedSpans: 8 } },
  };
}

/** A receiver, an upstream and a `wrangler dev` serving a tenant that sends its traces to the receiver. */
function useTracedTenant(name: string, protocol: string) {
  const parts = {} as { receiver: OtlpReceiver; upstream: Upstream; dev: DevServer };
  beforeAll(async () => {
    parts.receiver = await startOtlpReceiver();
    parts.upstream = await startUpstream();
    const config = tenant(name, parts.upstream.url, parts.receiver.url, protocol);
    parts.dev = await startDevServer({ vars: { TOOLGATE_CONFIG: JSON.stringify(config), TOOLGATE_DEMO: "false" } });
  }, 120_000);
  afterAll(async () => {
    await parts.dev?.stop();
    await parts.upstream?.close();
    await parts.receiver?.close();
  });
  return parts;
}

const byName = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);
const callSpan = (spans: ReceivedSpan[], callId: string) =>
  spans.find((span) => span.attributes["gen_ai.tool.call.id"] === callId);

async function callOpenAi(
  dev: DevServer,
  id: string,
  name: string,
  args: unknown,
  headers: Record<string, string> = {},
) {
  const started = performance.now();
  const res = await fetch(`${dev.url}/v1/calls/openai`, {
    method: "POST",
    headers: { authorization: "Bearer dev-call-key", "content-type": "application/json", ...headers },
    body: JSON.stringify([{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }]),
  });
  const body = await res.text();
  return { status: res.status, body, ms: performance.now() - started };
}

describe.each(["http/protobuf", "http/json"])("traces sent over OTLP %s", (protocol) => {
  const parts = useTracedTenant(`traces-${protocol.slice(5)}`, protocol);

  it("continues the caller's trace through a gated, retried call to the upstream", async () => {
    const { receiver, upstream, dev } = parts;
    const caller = parseTraceparent(CALLER)!;
    const id = `o-${crypto.randomUUID()}`;
    const answer = await callOpenAi(dev, id, "order_status", { id }, { traceparent: CALLER, tracestate: "app=1" });
    expect(answer.status, answer.body).toBe(200);
    await eventually(() => callSpan(receiver.spans(), id) !== undefined, "the call's span arrived");
    const received = receiver.exports.find((e) =>
      e.spans.some((span) => span.attributes["gen_ai.tool.call.id"] === id),
    )!;
    expect(received.contentType).toBe(protocol === "http/json" ? "application/json" : "application/x-protobuf");
    expect(received.resource).toMatchObject({
      "service.name": "toolgate",
      "toolgate.tenant": `traces-${protocol.slice(5)}`,
    });

    const spans = received.spans;
    const call = callSpan(spans, id)!;
    expect(call).toMatchObject({
      name: "execute_tool order_status",
      traceId: caller.traceId,
      parentSpanId: caller.spanId,
      traceState: "app=1",
      kind: 1,
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "order_status",
        "gen_ai.tool.call.id": id,
        "gen_ai.tool.type": "extension",
        "toolgate.tenant": `traces-${protocol.slice(5)}`,
        "toolgate.surface": "http",
        "toolgate.key": "app",
        "toolgate.call.status": "succeeded",
        "toolgate.call.attempts": 2,
      },
    });
    expect(call.status.code).toBe(0);
    const children = spans.filter((span) => span.parentSpanId === call.spanId);
    expect(children.map((span) => span.name).sort()).toEqual(
      ["attempt 1", "attempt 2", "gate_wait", "ledger claim", "ledger record"].sort(),
    );
    expect(byName(children, "gate_wait")[0]!.attributes).toMatchObject({ "toolgate.gate.granted": true });
    const first = byName(children, "attempt 1")[0]!;
    const second = byName(children, "attempt 2")[0]!;
    expect(first).toMatchObject({ status: { code: 2 }, attributes: { "error.type": "upstream_error" } });
    expect(second.status.code).toBe(0);
    for (const span of children) {
      expect(span.traceId).toBe(caller.traceId);
      expect(span.startNs >= call.startNs && span.endNs <= call.endNs).toBe(true);
    }

    // Each attempt's request is a client span under it, and the upstream got its traceparent.
    const requests = byName(spans, "GET").filter((span) => [first.spanId, second.spanId].includes(span.parentSpanId));
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      kind: 3,
      attributes: { "http.request.method": "GET", "http.response.status_code": 503, "error.type": "503" },
    });
    const sent = upstream.received.filter(
      (headers) => parseTraceparent(headers.traceparent as string)?.traceId === caller.traceId,
    );
    expect(sent.map((headers) => parseTraceparent(headers.traceparent as string)!.spanId).sort()).toEqual(
      requests.map((span) => span.spanId).sort(),
    );
    expect(sent.every((headers) => headers.tracestate === "app=1")).toBe(true);
  });

  it("marks a call parked for approval, and starts a trace of its own without a traceparent", async () => {
    const { receiver, dev } = parts;
    const id = `a-${crypto.randomUUID()}`;
    const answer = await callOpenAi(dev, id, "add", { a: 1, b: 2 });
    expect(answer.status, answer.body).toBe(200);
    await eventually(() => callSpan(receiver.spans(), id) !== undefined, "the parked call's span arrived");
    const call = callSpan(receiver.spans(), id)!;
    expect(call.parentSpanId).toBe("");
    expect(call.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(call.traceId).not.toBe(parseTraceparent(CALLER)!.traceId);
    expect(call.attributes).toMatchObject({
      "toolgate.call.status": "pending",
      "toolgate.approval.requested": true,
      "gen_ai.tool.type": "function",
    });
    expect(call.status.code).toBe(0);
  });

  it("traces a detached call's run in its Runner under the call's span", async () => {
    const { receiver, dev } = parts;
    const caller = parseTraceparent(CALLER)!;
    const id = `d-${crypto.randomUUID()}`;
    const answer = await callOpenAi(dev, id, "echo", { text: "hi" }, { traceparent: CALLER });
    expect(answer.status, answer.body).toBe(200);
    const spansOf = () => receiver.spans().filter((span) => span.attributes["gen_ai.tool.call.id"] === id);
    await eventually(() => spansOf().filter((span) => span.name === "execute_tool echo").length === 2, "both spans");
    const [inRequest, inRunner] = byName(spansOf(), "execute_tool echo").sort((a, b) =>
      a.attributes["toolgate.run"] === undefined ? -1 : b.attributes["toolgate.run"] === undefined ? 1 : 0,
    );
    expect(inRequest).toMatchObject({ traceId: caller.traceId, parentSpanId: caller.spanId });
    expect(inRequest!.attributes).toMatchObject({ "toolgate.call.status": "running", "toolgate.surface": "http" });
    expect(inRunner).toMatchObject({ traceId: caller.traceId, parentSpanId: inRequest!.spanId });
    expect(inRunner!.attributes).toMatchObject({ "toolgate.call.status": "succeeded", "toolgate.run": "detached" });
    const attempts = receiver.spans().filter((span) => span.parentSpanId === inRunner!.spanId);
    expect(attempts.map((span) => span.name)).toContain("attempt 1");
  });

  it("continues a parked call's trace in its approved run, after a span of the wait for approval", async () => {
    const { receiver, dev } = parts;
    const caller = parseTraceparent(CALLER)!;
    const id = `p-${crypto.randomUUID()}`;
    const answer = await callOpenAi(dev, id, "add", { a: 2, b: 3 }, { traceparent: CALLER });
    expect(answer.status, answer.body).toBe(200);
    await eventually(() => callSpan(receiver.spans(), id) !== undefined, "the parked call's span arrived");
    const parked = callSpan(receiver.spans(), id)!;
    const admin = { authorization: "Bearer dev-admin-key", "content-type": "application/json" };
    const read = await fetch(`${dev.url}/v1/calls/${id}`, { headers: admin });
    const { record } = (await read.json()) as { record: { trace: string } };
    expect(parseTraceparent(record.trace)).toMatchObject({ traceId: caller.traceId, spanId: parked.spanId });

    const decided = await fetch(`${dev.url}/v1/approvals/${id}`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ decision: "approve" }),
    });
    expect(decided.status, await decided.text()).toBe(202);
    const ran = () =>
      receiver
        .spans()
        .find(
          (span) => span.attributes["gen_ai.tool.call.id"] === id && span.attributes["toolgate.run"] === "approved",
        );
    await eventually(() => ran() !== undefined, "the approved run's span arrived");
    expect(ran()).toMatchObject({ traceId: caller.traceId, parentSpanId: parked.spanId });
    expect(ran()!.attributes).toMatchObject({ "toolgate.call.status": "succeeded" });
    const wait = receiver.spans().find((span) => span.name === "approval_wait" && span.parentSpanId === parked.spanId);
    expect(wait).toMatchObject({ traceId: caller.traceId, attributes: { "toolgate.wait": "approval" } });
    // It starts when the call was parked (its span also covers the ledger's write of it).
    expect(wait!.startNs >= parked.startNs && wait!.startNs <= parked.endNs).toBe(true);
    expect(wait!.endNs <= ran()!.startNs + 1_000_000n).toBe(true);
  });

  it("continues a call's trace in the run its caller's answers resume, after a span of the wait", async () => {
    const { receiver, dev } = parts;
    const caller = parseTraceparent(CALLER)!;
    const id = `i-${crypto.randomUUID()}`;
    const args = { question: "Which colour?", options: ["red", "blue"] };
    const answer = await callOpenAi(dev, id, "pick_option", args, { traceparent: CALLER });
    expect(answer.status, answer.body).toBe(200);
    await eventually(() => callSpan(receiver.spans(), id) !== undefined, "the asking call's span arrived");
    const asked = callSpan(receiver.spans(), id)!;
    expect(asked.attributes).toMatchObject({ "toolgate.call.status": "awaiting_input" });
    const given = await fetch(`${dev.url}/v1/calls/${id}/input`, {
      method: "POST",
      headers: { authorization: "Bearer dev-call-key", "content-type": "application/json" },
      body: JSON.stringify({ inputResponses: { choice: { action: "accept", content: { choice: "blue" } } } }),
    });
    expect(given.status, await given.text()).toBe(202);
    const resumed = () =>
      receiver
        .spans()
        .find((span) => span.attributes["gen_ai.tool.call.id"] === id && span.attributes["toolgate.run"] === "resumed");
    await eventually(() => resumed() !== undefined, "the resumed run's span arrived");
    expect(resumed()).toMatchObject({ traceId: caller.traceId, parentSpanId: asked.spanId });
    expect(resumed()!.attributes).toMatchObject({ "toolgate.call.status": "succeeded" });
    const wait = receiver.spans().find((span) => span.name === "input_wait" && span.parentSpanId === asked.spanId);
    expect(wait).toMatchObject({ traceId: caller.traceId, attributes: { "toolgate.wait": "input" } });
    expect(wait!.endNs <= resumed()!.startNs + 1_000_000n).toBe(true);
  });

  it("continues the trace an MCP request names in params._meta", async () => {
    const { receiver, upstream, dev } = parts;
    const traceId = crypto.randomUUID().replaceAll("-", "");
    const client = new Client({ name: "traced", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp`), {
        requestInit: { headers: { authorization: "Bearer dev-call-key" } },
      }),
    );
    const id = `m-${crypto.randomUUID()}`;
    const result = await client.callTool({
      name: "order_status",
      arguments: { id },
      _meta: { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, tracestate: "mcp=1" },
    });
    await client.close();
    expect(result.isError).toBeFalsy();
    await eventually(
      () => receiver.spans().some((span) => span.name === "execute_tool order_status" && span.traceId === traceId),
      "the MCP call's span arrived",
    );
    const call = receiver.spans().find((span) => span.traceId === traceId && span.name.startsWith("execute_tool"))!;
    expect(call).toMatchObject({ parentSpanId: "00f067aa0ba902b7", traceState: "mcp=1" });
    expect(call.attributes).toMatchObject({ "toolgate.surface": "mcp", "toolgate.key": "app" });
    expect(upstream.received.some((headers) => String(headers.traceparent).includes(traceId))).toBe(true);
  });
});

describe("a collector that hangs or is down", () => {
  const parts = useTracedTenant("traces-slow", "http/json");

  /** The median time of `count` successful calls, one after another. */
  async function medianMs(count: number): Promise<number> {
    const { dev } = parts;
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const id = `s-${crypto.randomUUID()}`;
      const answer = await callOpenAi(dev, id, "order_status", { id });
      expect(answer.status, answer.body).toBe(200);
      times.push(answer.ms);
    }
    return times.sort((a, b) => a - b)[Math.floor(count / 2)]!;
  }

  it("answers calls as fast while exports hang, drops what does not fit, and counts the drops", async () => {
    const { receiver, dev } = parts;
    await medianMs(3); // warm: the isolate, the ledger, the library
    const healthy = await medianMs(7);
    const exportsBefore = receiver.exports.length;
    receiver.hang(true);
    const hung = await medianMs(7);
    // Exports went out and hung: the calls did not wait for them.
    expect(receiver.exports.length).toBeGreaterThan(exportsBefore);
    console.log(
      `calls with a healthy collector: median ${healthy.toFixed(1)} ms; with a hung one: ${hung.toFixed(1)} ms`,
    );
    expect(hung).toBeLessThan(healthy * 1.5 + 50);
    receiver.hang(false);
    // The next export tells how many spans were dropped (the hung exports' and what the queue could not hold).
    await eventually(async () => {
      const id = `r-${crypto.randomUUID()}`;
      await callOpenAi(dev, id, "order_status", { id });
      return receiver.exports.some((e) => Number(e.resource["toolgate.telemetry.dropped_spans"]) > 0);
    }, "an export counted dropped spans");
  });

  it("answers calls when the collector refuses connections", async () => {
    const { receiver, dev } = parts;
    await receiver.close();
    const id = `d-${crypto.randomUUID()}`;
    const answer = await callOpenAi(dev, id, "order_status", { id });
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ messages: [{ role: "tool" }] });
  });
});
