import { describe, expect, it } from "vitest";
import { json, request } from "../helpers/requests";
import { openSession, post } from "../helpers/mcp";

const uid = () => crypto.randomUUID().slice(0, 8);
/** A body as raw text, so its number literals reach the Worker exactly as written. */
const openaiBody = (id: string, args: string) =>
  `{"role":"assistant","content":null,"tool_calls":[{"id":"${id}","type":"function",` +
  `"function":{"name":"add","arguments":${JSON.stringify(args)}}}]}`;

async function stored(id: string) {
  return (await json(await request(`/v1/calls/${id}`))).record;
}

describe("numbers JSON cannot carry exactly, through the Worker", () => {
  it("refuses an overflowing literal and a big integer literal in OpenAI arguments, naming the path; keeps a float literal", async () => {
    const ids = [`inf-${uid()}`, `big-${uid()}`, `flt-${uid()}`];
    // One request at a time: each answers before the next starts.
    const call = async (id: string, args: string) => {
      const res = await request("/v1/calls/openai", { body: openaiBody(id, args) });
      expect(res.status).toBe(200);
      return (await json(res)).calls[0];
    };
    const inf = await call(ids[0]!, '{"a":1e309,"b":0}');
    const big = await call(ids[1]!, '{"a":1,"b":9007199254740993}');
    // A float literal beyond 2^53 is what the sender wrote (workerd gives the reviver each literal's source).
    const flt = await call(ids[2]!, '{"a":1e20,"b":0}');
    expect(inf).toMatchObject({
      status: "rejected",
      error: {
        code: "invalid_arguments",
        message: 'Tool "add": a: 1e309 is too large for a JSON number (it overflows to Infinity).',
      },
    });
    expect(inf.error.issues).toEqual([{ path: "a", message: expect.stringContaining("1e309") }]);
    expect(big).toMatchObject({
      status: "rejected",
      error: {
        code: "invalid_arguments",
        message: expect.stringMatching(/^Tool "add": b: the integer 9007199254740993 is beyond ±\(2\^53−1\)/),
      },
    });
    expect(flt).toMatchObject({ status: "succeeded", output: { structured: { sum: 1e20 } } });
    // The ledger holds the same outcome; nothing was rounded or nulled on the way.
    expect((await stored(ids[0]!)).error.code).toBe("invalid_arguments");
    expect((await stored(ids[1]!)).error.code).toBe("invalid_arguments");
  });

  it("refuses such numbers in already-parsed Anthropic arguments (the Worker parsed the whole body)", async () => {
    const body = (id: string, input: string) =>
      `{"role":"assistant","content":[{"type":"tool_use","id":"${id}","name":"add","input":${input}}]}`;
    const inf = await request("/v1/calls/anthropic", { body: body(`ai-${uid()}`, '{"a":1e309,"b":0}') });
    const big = await request("/v1/calls/anthropic", { body: body(`ab-${uid()}`, '{"a":1,"b":9007199254740993}') });
    const infCall = (await json(inf)).calls[0];
    const bigCall = (await json(big)).calls[0];
    expect(infCall.error).toMatchObject({
      code: "invalid_arguments",
      message: expect.stringMatching(/^Tool "add": a: Infinity is not a JSON number/),
    });
    expect(bigCall.error).toMatchObject({
      code: "invalid_arguments",
      message: expect.stringMatching(/^Tool "add": b: 9007199254740992 is beyond ±\(2\^53−1\)/),
    });
  });

  it("refuses them in MCP tools/call arguments as an isError result naming the path", async () => {
    const session = await openSession();
    const res = await post(
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":-1e400}}}',
      session,
    );
    const answer = await json(res);
    expect(answer.result.isError).toBe(true);
    expect(answer.result.content[0].text).toMatch(/b: -Infinity is not a JSON number/);
  });

  it('answers a tool_error, not {"sum":null}, when add\'s sum overflows', async () => {
    const id = `sum-${uid()}`;
    const res = await request("/v1/calls/openai", { body: openaiBody(id, '{"a":1e308,"b":1e308}') });
    const { messages, calls } = await json(res);
    expect(calls[0]).toMatchObject({
      status: "failed",
      error: {
        code: "tool_error",
        message:
          'Tool "add" failed: The tool returned a value that is not JSON: ' +
          "Infinity at sum (JSON numbers must be finite).",
      },
    });
    expect(messages[0].content).toMatch(/^Error \[tool_error\]: .*Infinity at sum/);
    const record = await stored(id);
    expect(record).toMatchObject({ status: "failed", error: { code: "tool_error" } });
    expect(JSON.stringify(record)).not.toContain('"sum":null');
  });
});
