import { env as bindings } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SECOND_ISOLATE_CONFIG } from "../../fixtures/second-isolate-tenant";
import { CALL_KEY } from "../helpers/requests";
import {
  accept,
  askTenant,
  modelSays,
  rawCall,
  rawSession,
  respond,
  roundsOf,
  v1Client,
  v2LegacyClient,
} from "../helpers/mcp-ask-legacy";
import { mcpFetch, post } from "../helpers/mcp";
import type { Sse } from "../helpers/sse";

/**
 * ctx.ask and approval: "user" over legacy sessions (2025-11-25): a client that declared elicitation,
 * sampling or roots at initialize is sent the tool's question as a JSON-RPC request on the
 * tools/call stream; its response, POSTed apart, reaches the waiting call through the call's ledger
 * shard, and the call is made again with the answer. Each round is a record.
 */

describe("a legacy client that declared what it answers is asked on the call's stream", () => {
  it("the v1 client answers an elicitation and a sampling request; the rounds are records", async () => {
    const { env, target } = askTenant("lav1");
    const { client, asked } = await v1Client(target, {
      elicit: () => accept({ username: "ada", email: "ada@example.com" }),
      sample: (prompt) => modelSays(`${prompt} Paris.`),
    });
    const elicited = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
    const sampled = await client.callTool({ name: "test_sampling", arguments: { prompt: "Capital of France?" } });
    await client.close();
    expect(asked).toEqual(["elicitation/create", "sampling/createMessage"]);
    expect(elicited).toMatchObject({
      content: [
        { type: "text", text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' },
      ],
    });
    expect(elicited.isError).toBeFalsy();
    expect(sampled).toMatchObject({ content: [{ type: "text", text: "LLM response: Capital of France? Paris." }] });
    const rounds = await roundsOf(env, "test_elicitation");
    expect(rounds.map((r) => r.status)).toEqual(["input_required", "succeeded"]);
    expect(rounds[1]!.callId).toBe(`${rounds[0]!.callId}~2`);
  });

  it("the v2 client in legacy mode answers both too", async () => {
    const { target } = askTenant("lav2");
    const { client, asked } = await v2LegacyClient(target, {
      elicit: () => accept({ username: "grace", email: "g@example.com" }),
      sample: () => modelSays("Bonjour"),
    });
    const elicited = await client.callTool({ name: "test_elicitation", arguments: { message: "Who?" } });
    const sampled = await client.callTool({ name: "test_sampling", arguments: { prompt: "Greet me" } });
    await client.close();
    expect(asked).toEqual(["elicitation/create", "sampling/createMessage"]);
    expect(JSON.stringify(elicited.content)).toContain('\\"username\\":\\"grace\\"');
    expect(sampled.content).toEqual([{ type: "text", text: "LLM response: Bonjour" }]);
  });

  it("asks round after round, and roots/list as well", async () => {
    const { env, target } = askTenant("lavr");
    const answers = ["Ada", "green"];
    const { client } = await v1Client(target, {
      elicit: (message) => accept(message.includes("name") ? { name: answers[0] } : { color: answers[1] }),
      roots: () => ({ roots: [{ uri: "file:///work", name: "work" }] }),
    });
    const multi = await client.callTool({ name: "test_input_required_result_multi_round", arguments: {} });
    const roots = await client.callTool({ name: "test_input_required_result_list_roots", arguments: {} });
    await client.close();
    expect(multi.content).toEqual([{ type: "text", text: "Ada likes green." }]);
    expect(roots.content).toEqual([{ type: "text", text: "Roots: file:///work" }]);
    expect((await roundsOf(env, "test_input_required_result_multi_round")).map((r) => r.status)).toEqual([
      "input_required",
      "input_required",
      "succeeded",
    ]);
  });

  it("a declined elicitation is the tool's answer to read", async () => {
    const { target } = askTenant("lavd");
    const { client } = await v1Client(target, { elicit: () => ({ action: "decline" }) });
    const result = await client.callTool({ name: "test_elicitation", arguments: { message: "Who?" } });
    await client.close();
    expect(result).toMatchObject({ content: [{ text: "User response: action=decline, content={}" }] });
  });

  it("while the person answers, the stream is kept alive by SSE comments, and still ends with the call's answer", async () => {
    const { target } = askTenant("lakeep", {}, { TOOLGATE_MCP_KEEPALIVE_SECONDS: "0.05" });
    const { headers } = await rawSession(target, { elicitation: {} });
    const call = await rawCall(target, headers, 3, "test_elicitation", { message: "Who?" });
    const question = await call.asked();
    const isKeepalive = (frame: Sse) => frame.comment === "keepalive" && frame.data === undefined;
    const afterQuestion = (frames: Sse[]) => frames.slice(frames.findIndex((f) => f.data?.id === question.id) + 1);
    // Two in a row: comments go on for as long as the stream is silent, not once.
    await call.until((frames) => afterQuestion(frames).filter(isKeepalive).length >= 2);
    expect(
      (await respond(target, headers, question.id, { result: accept({ username: "kept", email: "k@example.com" }) }))
        .status,
    ).toBe(202);
    expect((await call.answer()).result.content[0].text).toContain('"username":"kept"');
    const frames = await call.frames();
    expect(afterQuestion(frames).filter(isKeepalive).length).toBeGreaterThanOrEqual(2);
    expect(frames.filter((f) => !isKeepalive(f)).map((f) => f.data?.id ?? f.data?.method)).toEqual([question.id, 3]);
  });

  it("elicitation modes: a URL-mode question goes only to a client that declared elicitation.url (elicitation: {} is forms only)", async () => {
    const { target } = askTenant("lavurl", { tools: ["test_url_elicitation", "test_elicitation"] });
    for (const formOnly of [{}, { form: {} }]) {
      const { client, asked } = await v1Client(target, { elicit: () => ({ action: "accept" }), elicitation: formOnly });
      const result = await client.callTool({ name: "test_url_elicitation", arguments: {} });
      await client.close();
      expect(asked).toEqual([]);
      expect(result).toMatchObject({
        isError: true,
        content: [
          {
            text: expect.stringMatching(
              /asks its caller \(elicitation\/create in URL mode\), and this caller cannot be asked that/,
            ),
          },
        ],
      });
    }
    // Declared URL mode only: asked URL-mode questions, and never a form.
    const urlOnly = await v1Client(target, { elicit: () => ({ action: "accept" }), elicitation: { url: {} } });
    const result = await urlOnly.client.callTool({ name: "test_url_elicitation", arguments: {} });
    const form = await urlOnly.client.callTool({ name: "test_elicitation", arguments: { message: "Who?" } });
    await urlOnly.client.close();
    expect(urlOnly.asked).toEqual(["elicitation/create"]);
    expect(result).toMatchObject({ content: [{ type: "text", text: "Came back: accept." }] });
    expect(form).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("cannot be asked") }] });
  });

  it("a client that did not declare the capability, or reads only JSON, is not asked: the call says what it needs", async () => {
    const { target } = askTenant("lavn");
    const { client, asked } = await v1Client(target, { elicit: () => accept({}) });
    const result = await client.callTool({ name: "test_sampling", arguments: { prompt: "?" } });
    await client.close();
    expect(asked).toEqual([]);
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("cannot be asked") }] });

    const { headers } = await rawSession(target, { elicitation: {} });
    const jsonOnly = await post(
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "test_elicitation", arguments: { message: "?" } },
      },
      { ...headers, accept: "application/json" },
      target,
    );
    expect(jsonOnly.headers.get("content-type")).toContain("application/json");
    expect(((await jsonOnly.json()) as any).result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining("cannot be asked") }],
    });
  });
});

describe('approval: "user" over a legacy session', () => {
  const userApproval = { policies: { echo: { approval: "user" } } };

  it("a client that declared elicitation confirms the call: approved it runs, declined it is denied", async () => {
    const { env, target } = askTenant("lapp", userApproval);
    const yes = await v1Client(target, { elicit: () => accept({ approve: true }) });
    const ran = await yes.client.callTool({ name: "echo", arguments: { text: "hi" } });
    await yes.client.close();
    expect(ran.isError).toBeFalsy();
    expect(JSON.stringify(ran.content)).toContain("hi");

    const no = await v2LegacyClient(target, { elicit: () => ({ action: "decline" }), sample: () => modelSays("") });
    const refused = await no.client.callTool({ name: "echo", arguments: { text: "no" } });
    await no.client.close();
    expect(refused).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("did not approve") }] });
    expect((await roundsOf(env, "echo")).map((r) => r.status).sort()).toEqual([
      "denied",
      "input_required",
      "input_required",
      "succeeded",
    ]);
  });

  it("a client that did not declare elicitation still has the call parked for an admin", async () => {
    const { target } = askTenant("lappn", userApproval);
    const { client } = await v1Client(target, { sample: () => modelSays("") });
    const parked = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    await client.close();
    expect(parked).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("needs approval") }] });
  });
});

describe("the answer travels only through durable state", () => {
  it("the client's answer POST lands on another isolate (no memory shared with the waiting one): the call gets it", async () => {
    // Both isolates serve the same tenant over the same objects; the tools/call goes to this one,
    // every client response to the second (test/runner/second-isolate.ts).
    const second = (bindings as unknown as { SECOND_ISOLATE: Fetcher }).SECOND_ISOLATE;
    const here = mcpFetch({ vars: { TOOLGATE_CONFIG: SECOND_ISOLATE_CONFIG } });
    const statuses: number[] = [];
    const routed: typeof fetch = async (input, init) => {
      const req = new Request(input, init);
      const text = req.method === "POST" ? await req.clone().text() : "";
      if (!text || "method" in JSON.parse(text)) return here(input, init);
      const headers = new Headers(req.headers);
      headers.set("authorization", `Bearer ${CALL_KEY}`);
      const res = await second.fetch(new Request(req.url, { method: "POST", headers, body: text }));
      statuses.push(res.status);
      return res;
    };
    const { client } = await v1Client(
      {},
      { elicit: () => accept({ username: "linus", email: "l@example.com" }), sample: () => modelSays("from afar") },
      routed,
    );
    const elicited = await client.callTool({ name: "test_elicitation", arguments: { message: "Who?" } });
    const sampled = await client.callTool({ name: "test_sampling", arguments: { prompt: "?" } });
    await client.close();
    expect(statuses).toEqual([202, 202]);
    expect(JSON.stringify(elicited.content)).toContain("linus");
    expect(sampled.content).toEqual([{ type: "text", text: "LLM response: from afar" }]);
  });

  it("an answer written to the call's ledger shard by anyone is the one the waiting call reads", async () => {
    const { target, ledger } = askTenant("ladur");
    const { headers, callIdOf } = await rawSession(target, { elicitation: {} });
    const call = await rawCall(target, headers, 3, "test_elicitation", { message: "Who?" });
    const question = await call.asked();
    expect(question).toMatchObject({ jsonrpc: "2.0", method: "elicitation/create", params: { message: "Who?" } });
    expect(
      await ledger
        .for(callIdOf(3))
        .answerAsk(
          callIdOf(3),
          question.id,
          JSON.stringify({ result: accept({ username: "direct", email: "d@example.com" }) }),
        ),
    ).toBe("accepted");
    expect((await call.answer()).result.content[0].text).toContain('"username":"direct"');
  });
});
