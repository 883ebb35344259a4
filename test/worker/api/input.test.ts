import { describe, expect, it } from "vitest";
import { eventually } from "../../wait";
import { faultTenant } from "../helpers/faults";
import { json, request } from "../helpers/requests";
import { modernPost } from "../helpers/mcp";

/**
 * An HTTP caller answers what a tool asks (ctx.ask) through POST /v1/calls/:id/input: the call waits
 * (awaiting_input, its questions in error.inputRequests), and once every question is answered its
 * Runner runs it again with the answers, to its end. GET /v1/calls/:id?wait= reads the outcome.
 */

function tenant(prefix: string) {
  return faultTenant(prefix, { tools: ["pick_option", "confirm_delete", "multi_input", "echo"] }).env;
}

const openaiCall = (id: string, name: string, args: unknown) => [
  { id, type: "function", function: { name, arguments: JSON.stringify(args) } },
];
const uid = () => crypto.randomUUID().slice(0, 8);
const accept = (content: Record<string, unknown>) => ({ action: "accept", content });

async function answer(env: Record<string, unknown>, callId: string, inputResponses: Record<string, unknown>) {
  const res = await request(`/v1/calls/${callId}/input`, { env, body: { inputResponses } });
  return { status: res.status, body: await json(res) };
}

async function outcome(env: Record<string, unknown>, callId: string): Promise<any> {
  let record: any;
  await eventually(
    async () => {
      record = (await json(await request(`/v1/calls/${callId}?wait=5`, { env }))).record;
      return record.status !== "running" && record.status !== "awaiting_input";
    },
    `${callId} ended`,
    20_000,
  );
  return record;
}

describe("an HTTP call that asks its caller", () => {
  it("waits for the answer POST /v1/calls/:id/input gives, then runs on to its outcome (pick_option)", async () => {
    const env = tenant("hin");
    const id = `pick-${uid()}`;
    const args = { question: "Which colour?", options: ["red", "green", "blue"] };
    const res = await request("/v1/calls/openai", { env, body: openaiCall(id, "pick_option", args) });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.calls[0]).toMatchObject({
      status: "awaiting_input",
      error: {
        code: "input_required",
        inputRequests: { choice: { method: "elicitation/create", params: { message: "Which colour?" } } },
      },
    });
    // What the model reads: the question is with the caller, and the call goes on.
    expect(body.messages[0].content).toContain("waits for the answers");
    expect(body.messages[0].content).toContain("Do not call it again");

    const given = await answer(env, id, { choice: accept({ choice: "blue" }) });
    expect(given).toMatchObject({ status: 202, body: { callId: id, state: "resumed" } });
    const record = await outcome(env, id);
    const structured = { answered: "accept", choice: "blue" };
    expect(record).toMatchObject({ status: "succeeded", output: { structured } });
    expect(record.error).toBeUndefined();
    // Answered once: the call no longer waits.
    expect((await answer(env, id, { choice: accept({ choice: "red" }) })).status).toBe(409);
  });

  it("a detached tool asks in its run; questions asked together are answered one by one", async () => {
    const env = tenant("hind");
    const id = `multi-${uid()}`;
    const res = await request("/v1/calls/openai", { env, body: openaiCall(id, "multi_input", {}) });
    expect((await json(res)).calls[0].status).toBe("running");
    const status = async () => (await json(await request(`/v1/calls/${id}`, { env }))).record.status;
    await eventually(async () => (await status()) === "awaiting_input", `${id} waits`);
    const first = await answer(env, id, { first_input: accept({ confirm: true }) });
    expect(first).toMatchObject({ status: 200, body: { state: "awaiting_input" } });
    expect(Object.keys(first.body.call.record.error.inputRequests)).toEqual(["second_input"]);
    expect((await answer(env, id, { second_input: accept({ confirm: false }) })).status).toBe(202);
    expect((await outcome(env, id)).output.content[0].text).toBe('Answers: {"confirm":true}, {"confirm":false}');
  });

  it("answers to a call that ended asking (an MCP round) are refused with what to do instead", async () => {
    const env = tenant("hinr");
    const args = { question: "Which colour?", options: ["red", "green"] };
    const asked = await modernPost(
      "tools/call",
      { name: "pick_option", arguments: args },
      {
        target: { vars: env as Record<string, string> },
        meta: { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } },
      },
    );
    expect(((await asked.json()) as any).result.resultType).toBe("input_required");
    const [entry] = (await json(await request("/v1/calls?tool=pick_option", { env }))).calls;
    expect(entry.record.status).toBe("input_required");
    const refused = await answer(env, entry.record.callId, { choice: accept({ choice: "red" }) });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain("an HTTP caller makes the call again (a new id), and that call waits");
  });

  it("a call that does not ask is not affected, and a call that never waited says so", async () => {
    const env = tenant("hinn");
    const id = `echo-${uid()}`;
    const res = await request("/v1/calls/openai", { env, body: openaiCall(id, "echo", { text: "hi" }) });
    expect((await json(res)).calls[0].status).toBe("succeeded");
    const refused = await answer(env, id, { anything: accept({}) });
    const error = { code: "not_awaiting_input", message: expect.stringContaining("it is succeeded") };
    expect(refused).toEqual({ status: 409, body: { error } });
  });
});
