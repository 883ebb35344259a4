import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN_KEY, CALL_KEY } from "../helpers/requests";

/** Ask the chat-app Worker to call one RPC method of toolgate through its service binding. */
async function rpc(method: string, ...args: unknown[]): Promise<any> {
  const chatApp = (env as unknown as { CHAT_APP: Fetcher }).CHAT_APP;
  const res = await chatApp.fetch("http://chat-app/", { method: "POST", body: JSON.stringify({ method, args }) });
  const answer = (await res.json()) as { returned?: unknown; threw?: string };
  if (answer.threw) throw new Error(answer.threw);
  return answer.returned;
}

const uid = () => crypto.randomUUID().slice(0, 8);

describe("service binding (ToolgateService over RPC from another Worker)", () => {
  it("lists tools in a format", async () => {
    const answer = await rpc("listTools", CALL_KEY, "anthropic");
    expect(answer.ok).toBe(true);
    expect(answer.value.tools.map((t: any) => t.name)).toContain("add");
    expect(answer.value.tools[0]).toHaveProperty("input_schema");
  });

  it("runs calls in a named format and with the format detected", async () => {
    const message = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: `rpc-${uid()}`, type: "function", function: { name: "add", arguments: '{"a":20,"b":22}' } }],
    };
    for (const format of ["openai", null]) {
      const answer = await rpc("runCalls", CALL_KEY, format, message);
      expect(answer).toMatchObject({ ok: true, status: 200 });
      expect(answer.value.messages[0].content).toBe('{"sum":42}');
      expect(answer.value.calls[0]).toMatchObject({ tool: "add", status: "succeeded", tenant: "demo" });
    }
  });

  it("applies the same keys, scopes and limits as HTTP", async () => {
    expect(await rpc("listTools", "wrong-key", "openai")).toEqual({
      ok: false,
      status: 401,
      error: { code: "invalid_key", message: expect.any(String) },
    });
    const many = Array.from({ length: 129 }, (_, i) => ({
      type: "function",
      id: `m${i}`,
      function: { name: "add", arguments: "{}" },
    }));
    const tooMany = await rpc("runCalls", ADMIN_KEY, "openai", { role: "assistant", tool_calls: many });
    expect(tooMany).toMatchObject({ ok: false, status: 400, error: { code: "too_many_calls" } });
    expect(await rpc("listTools", CALL_KEY, "klingon")).toMatchObject({
      ok: false,
      status: 404,
      error: { code: "unknown_format" },
    });
  });

  it("answers a call whose tool asked (pick_option), which then runs on", async () => {
    const id = `ask-${uid()}`;
    const args = JSON.stringify({ question: "Which?", options: ["one", "two"] });
    const call = { id, type: "function", function: { name: "pick_option", arguments: args } };
    const asked = await rpc("runCalls", CALL_KEY, "openai", { role: "assistant", tool_calls: [call] });
    expect(asked.value.calls[0]).toMatchObject({ status: "awaiting_input", error: { inputRequests: { choice: {} } } });
    const choice = { action: "accept", content: { choice: "two" } };
    const answered = await rpc("answerCall", CALL_KEY, id, { choice });
    expect(answered).toMatchObject({ ok: true, status: 202, value: { state: "resumed" } });
    const done = await rpc("getRecord", CALL_KEY, id, 30);
    const structured = { answered: "accept", choice: "two" };
    expect(done.value.record).toMatchObject({ status: "succeeded", output: { structured } });
  });

  it("reads a record by id (404 for an unknown one)", async () => {
    const id = `rec-${uid()}`;
    const message = {
      role: "assistant",
      tool_calls: [{ id, type: "function", function: { name: "echo", arguments: '{"text":"kept"}' } }],
    };
    expect(await rpc("runCalls", CALL_KEY, "openai", message)).toMatchObject({ ok: true });
    const found = await rpc("getRecord", CALL_KEY, id);
    expect(found).toMatchObject({
      ok: true,
      status: 200,
      value: { record: { callId: id, tool: "echo", status: "succeeded" } },
    });
    expect(await rpc("getRecord", CALL_KEY, `never-${uid()}`)).toMatchObject({
      ok: false,
      status: 404,
      error: { code: "not_found" },
    });
  });
});
