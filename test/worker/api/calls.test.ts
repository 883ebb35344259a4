import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../fixtures/app";
import { BASE, CALL_KEY, json, request, tenantConfig } from "../helpers/requests";

const uid = () => crypto.randomUUID().slice(0, 8);
const toolCall = (id: string, name: string, args: string) => ({
  id,
  type: "function",
  function: { name, arguments: args },
});
const assistant = (...tool_calls: unknown[]) => ({ role: "assistant", content: null, tool_calls });

afterEach(() => vi.restoreAllMocks());

describe("POST /v1/calls/:format", () => {
  it("answers every tool-level failure as a result inside a 200, in order", async () => {
    const id = uid();
    const res = await request("/v1/calls/openai", {
      body: assistant(
        toolCall(`1-${id}`, "add", "{not json"),
        toolCall(`2-${id}`, "add", '{"a":"one","b":2}'),
        toolCall(`3-${id}`, "fail", '{"message":"the printer is on fire"}'),
        toolCall(`4-${id}`, "echo", '{"text":"hello"}'),
      ),
    });
    expect(res.status).toBe(200);
    const { messages, calls } = await json(res);
    expect(messages.map((m: any) => m.tool_call_id)).toEqual([1, 2, 3, 4].map((n) => `${n}-${id}`));
    expect(messages[2].content).toBe("Error [tool_error]: the printer is on fire");
    expect(messages[3].content).toBe("hello");
    expect(calls.map((r: any) => [r.status, r.error?.code])).toEqual([
      ["rejected", "invalid_json"],
      ["rejected", "invalid_arguments"],
      ["failed", "tool_error"],
      ["succeeded", undefined],
    ]);
    expect(calls[1].validation.issues[0].path).toBe("a");
  });

  it("parks a high-risk call for approval instead of running it", async () => {
    const res = await request("/v1/calls/openai", {
      body: assistant(toolCall(`m-${uid()}`, "send_message", '{"to":"bob","text":"hi"}')),
    });
    expect(res.status).toBe(200);
    const { calls } = await json(res);
    expect(calls[0]).toMatchObject({
      tool: "send_message",
      status: "pending",
      permission: "approval",
      error: { code: "approval_required" },
    });
  });

  it("answers 400 when the body holds no calls or is not that format", async () => {
    const none = await request("/v1/calls/openai", {
      body: { role: "assistant", content: "Just text.", tool_calls: [] },
    });
    expect(none.status).toBe(400);
    expect((await json(none)).error.code).toBe("no_calls");
    const wrong = await request("/v1/calls/openai", { body: { role: "assistant", tool_calls: "many" } });
    expect(wrong.status).toBe(400);
    expect(await json(wrong)).toEqual({
      error: { code: "invalid_calls", message: expect.stringMatching(/^Not openai tool calls: /) },
    });
  });

  it("answers 400 for more calls than the batch limit (default 128)", async () => {
    const id = uid();
    const many = Array.from({ length: 129 }, (_, i) => toolCall(`${i}-${id}`, "add", '{"a":1,"b":1}'));
    const res = await request("/v1/calls/openai", { body: assistant(...many) });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      error: { code: "too_many_calls", message: "129 calls in one request; the limit is 128." },
    });
  });

  it("applies the tenant's own batch limit", async () => {
    const config = tenantConfig({ limits: { maxCallsPerBatch: 2 } });
    const id = uid();
    const calls = (n: number) =>
      assistant(...Array.from({ length: n }, (_, i) => toolCall(`${n}-${i}-${id}`, "add", '{"a":1,"b":1}')));
    expect((await request("/v1/calls/openai", { body: calls(2), env: { TOOLGATE_CONFIG: config } })).status).toBe(200);
    expect((await request("/v1/calls/openai", { body: calls(3), env: { TOOLGATE_CONFIG: config } })).status).toBe(400);
  });
});

describe("POST /v1/calls (format detected)", () => {
  it("answers 400 when no format matches the body", async () => {
    const res = await request("/v1/calls", { body: { hello: "world" } });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toEqual({
      code: "unknown_format",
      message: expect.stringMatching(/Could not tell the format/),
    });
  });
});

describe("logging and errors", () => {
  it("logs one structured line per call, without arguments", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const id = uid();
    const res = await request("/v1/calls/openai", {
      body: assistant(toolCall(`1-${id}`, "echo", '{"text":"private words"}'), toolCall(`2-${id}`, "nope", "{}")),
    });
    // Each a single line of JSON text, whose fields Workers Logs reads as a logged object's.
    const printed = log.mock.calls.map((args) => args.join(" ")).filter((line) => line.includes('"msg":"call"'));
    expect(printed.every((line) => !line.includes("\n"))).toBe(true);
    const lines = printed.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({
        requestId: res.headers.get("x-request-id"),
        key: "dev-call",
        tenant: "demo",
        callId: `1-${id}`,
        tool: "echo",
        status: "succeeded",
      }),
      expect.objectContaining({ callId: `2-${id}`, tool: "nope", status: "rejected", code: "unknown_tool" }),
    ]);
    expect(JSON.stringify(lines)).not.toContain("private words");
  });

  it("answers an unexpected error as JSON 500 and logs the cause with secrets masked", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const app = createApp();
    app.get("/v1/boom", () => {
      throw new Error("upstream said: token sk-very-secret-123 is bad");
    });
    const config = tenantConfig({ secrets: { TOKEN: "ACME_TOKEN" } });
    const res = await app.request(
      `${BASE}/v1/boom`,
      { headers: { authorization: `Bearer ${CALL_KEY}` } },
      {
        ...env,
        TOOLGATE_CONFIG: config,
        ACME_TOKEN: "sk-very-secret-123",
      },
    );
    expect(res.status).toBe(500);
    const body = await json(res);
    expect(body).toEqual({
      error: { code: "internal", message: `Internal error (request ${res.headers.get("x-request-id")}).` },
    });
    const logged = JSON.stringify(log.mock.calls);
    expect(logged).toContain("upstream said: token");
    expect(logged).not.toContain("sk-very-secret-123");
  });

  it("answers a missing secret as a config error naming it", async () => {
    const config = tenantConfig({ secrets: { TOKEN: "ACME_TOKEN" } });
    const res = await request("/v1/calls/openai", {
      body: assistant(toolCall(`s-${uid()}`, "add", '{"a":1,"b":1}')),
      env: { TOOLGATE_CONFIG: config },
    });
    expect(res.status).toBe(500);
    expect((await json(res)).error).toEqual({
      code: "config_invalid",
      message: expect.stringContaining("secrets.TOKEN: the Worker secret ACME_TOKEN is not set"),
    });
  });

  it("tags every answer with a request id", async () => {
    const res = await request("/healthz", { key: null });
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
