import { describe, expect, it } from "vitest";
import { eventually } from "../../wait";
import { json, request } from "../helpers/requests";
import { accept, askTenant, rawCall, rawSession, respond, roundsOf, v1Client } from "../helpers/mcp-ask-legacy";
import { mcpFetch, MCP_URL, post } from "../helpers/mcp";

/**
 * What goes wrong while a legacy client is asked: an error for an answer, no answer in time, the
 * client going away, cancelling or ending its session, an answer too large or to nothing. Each ends
 * the call with a result a model can read, and the call's last round records why.
 */

const ELICIT = { elicitation: {} };
const WHO = { message: "Who?" };

async function recordOf(env: Record<string, unknown>, callId: string) {
  const res = await request(`/v1/calls/${callId}`, { env });
  return res.status === 200 ? (await json(res)).record : undefined;
}

describe("a question that gets no answer ends the call clearly, and its record says why", () => {
  it("the client answers with an error", async () => {
    const { env, target } = askTenant("lfe");
    const { client } = await v1Client(target, {
      elicit: () => {
        throw new Error("no screen to show the form on");
      },
    });
    const result = await client.callTool({ name: "test_elicitation", arguments: WHO });
    await client.close();
    const said =
      /The MCP client answered elicitation\/create \("user_info"\) with an error: .*no screen to show the form on/;
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(said) }] });
    const rounds = await roundsOf(env, "test_elicitation");
    expect(rounds.map((r) => r.status)).toEqual(["input_required", "failed"]);
    expect(rounds[1]!.error!.message).toMatch(said);
  });

  it("no answer within TOOLGATE_MCP_ASK_TIMEOUT_SECONDS: timed_out; an answer after that is refused", async () => {
    const { env, target } = askTenant("lft", {}, { TOOLGATE_MCP_ASK_TIMEOUT_SECONDS: "0.3" });
    const { headers, callIdOf } = await rawSession(target, ELICIT);
    const call = await rawCall(target, headers, 3, "test_elicitation", WHO);
    const question = await call.asked();
    const answer = await call.answer();
    expect(answer.result).toMatchObject({
      isError: true,
      content: [
        { text: 'Error [timeout]: The MCP client did not answer elicitation/create ("user_info") within 0.3 s.' },
      ],
    });
    expect(await recordOf(env, `${callIdOf(3)}~2`)).toMatchObject({ status: "timed_out", error: { code: "timeout" } });

    const late = await respond(target, headers, question.id, {
      result: accept({ username: "late", email: "l@example.com" }),
    });
    expect(late.status).toBe(400);
    expect(await late.json()).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringContaining("No request of this session waits") },
    });
  });

  it("the client goes away while asked: the call is recorded cancelled, beyond the request", async () => {
    const { env, target } = askTenant("lfg");
    const { headers, callIdOf } = await rawSession(target, ELICIT);
    const gone = new AbortController();
    const call = await rawCall(target, headers, 3, "test_elicitation", WHO, gone.signal);
    await call.asked();
    gone.abort();
    let record: any;
    await eventually(
      async () => ["cancelled", "failed"].includes((record = await recordOf(env, `${callIdOf(3)}~2`))?.status),
      "the last round ends",
    );
    expect(record).toMatchObject({
      status: "cancelled",
      error: {
        message: 'The MCP client closed the request while elicitation/create ("user_info") waited for its answer.',
      },
    });
  });

  it("notifications/cancelled, on any isolate, stops the wait; the call ends cancelled with the client's reason", async () => {
    const { env, target } = askTenant("lfc");
    const { headers, callIdOf } = await rawSession(target, ELICIT);
    const call = await rawCall(target, headers, 3, "test_elicitation", WHO);
    await call.asked();
    const cancel = await post(
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3, reason: "user pressed stop" } },
      headers,
      target,
    );
    expect(cancel.status).toBe(202);
    expect((await call.answer()).result).toMatchObject({
      isError: true,
      content: [{ text: "Error [cancelled]: The MCP client cancelled the call: user pressed stop" }],
    });
    expect(await recordOf(env, `${callIdOf(3)}~2`)).toMatchObject({ status: "cancelled" });
  });

  it("notifications/cancelled after the answer reaches the round the call now runs as", async () => {
    const { env, target } = askTenant("lfcr");
    const { headers, callIdOf } = await rawSession(target, ELICIT);
    const call = await rawCall(target, headers, 3, "test_confirm_then_work", { ms: 20_000 });
    const question = await call.asked();
    expect((await respond(target, headers, question.id, { result: accept({ start: true }) })).status).toBe(202);
    await eventually(
      async () => (await recordOf(env, `${callIdOf(3)}~2`))?.status === "running",
      "the second round runs",
    );
    await post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } }, headers, target);
    expect((await call.answer()).result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining("cancelled") }],
    });
    expect(await recordOf(env, `${callIdOf(3)}~2`)).toMatchObject({ status: "cancelled" });
  });

  it("a cancel that came before the call asked: its question is never sent", async () => {
    const { target, ledger } = askTenant("lfcb");
    const { headers, callIdOf } = await rawSession(target, ELICIT);
    const callId = callIdOf(4);
    // As the isolate receiving notifications/cancelled does, before the call's first round ended asking.
    await ledger.for(callId).cancelAsks(callId, "The MCP client cancelled the call.", Date.now() + 60_000);
    const call = await rawCall(target, headers, 4, "test_elicitation", WHO);
    const frames = await call.frames();
    expect(frames.some((frame) => frame.data?.method === "elicitation/create")).toBe(false);
    expect(frames.at(-1)!.data.result).toMatchObject({
      isError: true,
      content: [{ text: "Error [cancelled]: The MCP client cancelled the call." }],
    });
  });

  it("DELETE of the session while asked: the call ends cancelled", async () => {
    const { target } = askTenant("lfdel");
    const { headers } = await rawSession(target, ELICIT);
    const call = await rawCall(target, headers, 3, "test_elicitation", WHO);
    await call.asked();
    const ended = await mcpFetch(target)(MCP_URL, { method: "DELETE", headers });
    expect(ended.status).toBe(200);
    expect((await call.answer()).result).toMatchObject({
      isError: true,
      content: [{ text: "Error [cancelled]: The MCP client ended its session." }],
    });
  });

  it('approval: "user" unanswered in time: the call is denied, saying why', async () => {
    const { env, target } = askTenant(
      "lfat",
      { policies: { echo: { approval: "user" } } },
      { TOOLGATE_MCP_ASK_TIMEOUT_SECONDS: "0.2" },
    );
    const { headers } = await rawSession(target, ELICIT);
    const answer = await (await rawCall(target, headers, 3, "echo", { text: "hi" })).answer();
    expect(answer.result).toMatchObject({
      isError: true,
      content: [
        {
          text: expect.stringMatching(
            /was denied: the user who made the call was asked and gave no answer \(.*within 0.2 s\.\)/,
          ),
        },
      ],
    });
    expect((await roundsOf(env, "echo")).map((r) => r.status)).toEqual(["input_required", "denied"]);
  });
});

describe("responses toolgate cannot take", () => {
  it("an answer larger than 64 KB is refused (400) and the waiting call fails saying so", async () => {
    const { env, target } = askTenant("lfbig");
    const { headers, callIdOf } = await rawSession(target, ELICIT);
    const call = await rawCall(target, headers, 3, "test_elicitation", WHO);
    const question = await call.asked();
    const big = await respond(target, headers, question.id, {
      result: accept({ username: "x".repeat(70_000), email: "e" }),
    });
    expect(big.status).toBe(400);
    expect(await big.json()).toMatchObject({
      id: null,
      error: { code: -32602, message: expect.stringContaining("over the limit of 65536") },
    });
    expect((await call.answer()).result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining("over the limit of 65536") }],
    });
    expect(await recordOf(env, `${callIdOf(3)}~2`)).toMatchObject({ status: "failed" });
  });

  it("answers that fit one by one but not together (the bound of all of a call's answers) fail the question that passes it", async () => {
    const { env, target } = askTenant("lfsum");
    const long = (field: string, letter: string) => accept({ [field]: letter.repeat(40_000) });
    const { client, asked } = await v1Client(target, {
      elicit: (message) => (message.startsWith("Step 1") ? long("name", "n") : long("color", "c")),
    });
    const result = await client.callTool({ name: "test_input_required_result_multi_round", arguments: {} });
    await client.close();
    expect(asked).toEqual(["elicitation/create", "elicitation/create"]);
    const said = new RegExp(
      String.raw`The answers to this call would take 80\d{3} characters of JSON, ` +
        String.raw`over the limit of 65536 characters for all of one call's answers\.`,
    );
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(said) }] });
    const rounds = await roundsOf(env, "test_input_required_result_multi_round");
    expect(rounds.map((r) => r.status)).toEqual(["input_required", "input_required", "failed"]);
  });

  it("a response to no request of this session is a 400 with a JSON-RPC error, not taken", async () => {
    const { target } = askTenant("lfunk");
    const { headers } = await rawSession(target, ELICIT);
    for (const id of ["ask~n9~AAAAAAAAAAAAAAAA", 42, "ask~n1~../../etc"]) {
      const res = await respond(target, headers, id, { result: {} });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    }
    // Another session's question: its id names a call of that session, which this one cannot reach.
    const other = await rawSession(target, ELICIT);
    const call = await rawCall(target, other.headers, 3, "test_elicitation", WHO);
    const question = await call.asked();
    expect(
      (await respond(target, headers, question.id, { result: accept({ username: "thief", email: "t" }) })).status,
    ).toBe(400);
    expect(
      (await respond(target, other.headers, question.id, { result: accept({ username: "owner", email: "o" }) })).status,
    ).toBe(202);
    expect((await call.answer()).result.content[0].text).toContain("owner");
  });
});

describe("what the client declared travels in its session id", () => {
  it("the id carries the capability bits under its tag: altered, it is refused", async () => {
    const { target } = askTenant("lfid");
    const plain = await rawSession(target, {});
    expect(plain.sessionId.split(".")).toHaveLength(3);
    const asking = await rawSession(target, { elicitation: {}, sampling: {}, roots: {} });
    const parts = asking.sessionId.split(".");
    expect(parts).toHaveLength(4);
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    expect((await post(ping, asking.headers, target)).status).toBe(200);
    const forged = { ...asking.headers, "mcp-session-id": [...parts.slice(0, 3), "1"].join(".") };
    expect((await post(ping, forged, target)).status).toBe(404);
    const stripped = { ...asking.headers, "mcp-session-id": parts.slice(0, 3).join(".") };
    expect((await post(ping, stripped, target)).status).toBe(404);
  });
});
