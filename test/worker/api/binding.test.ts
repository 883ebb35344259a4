import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN_KEY, CALL_KEY, json, request } from "../helpers/requests";

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

  describe("acting for an app's user (the last argument, as)", () => {
    const addCall = (id: string) => ({
      role: "assistant",
      tool_calls: [{ id, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }],
    });
    /** A runtime key of the demo tenant with these scopes that may act for users by plain id. */
    async function actingKey(scopes: string[]): Promise<string> {
      const body = { name: `rpc-acting-${uid()}`, scopes, actAs: "header" };
      const res = await request("/v1/keys", { key: ADMIN_KEY, body });
      expect(res.status).toBe(201);
      return (await json(res)).secret;
    }
    const recorded = async (id: string) => (await rpc("getRecord", ADMIN_KEY, id)).ok as boolean;

    it("acts for the user it names: the key's rights narrowed to the user's", async () => {
      const acting = await actingKey(["admin"]);
      const id = `rpc-user-${uid()}`;
      expect(await rpc("runCalls", acting, "openai", addCall(id), { user: "bob" })).toMatchObject({
        ok: true,
        value: { calls: [{ status: "succeeded" }] },
      });
      const other = `rpc-other-${uid()}`;
      expect(await rpc("runCalls", CALL_KEY, "openai", addCall(other))).toMatchObject({ ok: true });
      // The admin key reads any call; acting for bob (a user, so "call" here) only its own.
      expect(await rpc("getRecord", acting, other)).toMatchObject({ ok: true });
      expect(await rpc("getRecord", acting, other, null, { user: "bob" })).toMatchObject({ ok: false, status: 404 });
      expect(await rpc("getRecord", acting, id, null, { user: "bob" })).toMatchObject({ ok: true });
      expect(await rpc("listTools", acting, "openai", { user: "bob" })).toMatchObject({ ok: true });
      const unknown = await rpc("answerCall", acting, `never-${uid()}`, {}, { user: "bob" });
      expect(unknown).toMatchObject({ ok: false, status: 404 });
    });

    it("refuses a key without actAs on every method, and runs nothing", async () => {
      const id = `rpc-refused-${uid()}`;
      const refused = { ok: false, status: 403, error: { code: "act_as_forbidden" } };
      expect(await rpc("runCalls", CALL_KEY, "openai", addCall(id), { user: "bob" })).toMatchObject(refused);
      expect(await rpc("runCalls", CALL_KEY, null, addCall(id), { userToken: "a.b.c" })).toMatchObject(refused);
      expect(await rpc("listTools", CALL_KEY, "openai", { user: "bob" })).toMatchObject(refused);
      expect(await rpc("getRecord", CALL_KEY, id, undefined, { user: "bob" })).toMatchObject(refused);
      expect(await rpc("answerCall", CALL_KEY, id, {}, { user: "bob" })).toMatchObject(refused);
      expect(await recorded(id)).toBe(false);
    });

    it.each([
      ["not an object", "bob"],
      ["both", { user: "bob", userToken: "a.b.c" }],
      ["neither", { someone: "bob" }],
      ["a user that is not a string", { user: 7 }],
      ["a line break", { user: "bob\nx-injected: 1" }],
      ["an empty token", { userToken: "" }],
      ["a space around the id", { user: " bob" }],
    ])("refuses an as that is %s, before anything runs", async (_label, as) => {
      const acting = await actingKey(["call"]);
      const id = `rpc-bad-as-${uid()}`;
      expect(await rpc("runCalls", acting, "openai", addCall(id), as)).toEqual({
        ok: false,
        status: 400,
        error: { code: "invalid_user", message: expect.stringMatching(/^as/) },
      });
      expect(await recorded(id)).toBe(false);
    });
  });
});
