import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN_KEY, CALL_KEY, json, request } from "../helpers/requests";
import { uid } from "../helpers/ledger";
import { connect } from "../helpers/mcp";

const echoCall = (id: string, text: string) => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "echo", arguments: JSON.stringify({ text }) } }],
});

/** Ask the chat-app Worker to run a message through toolgate's service binding. */
async function runThroughBinding(key: string, message: unknown): Promise<any> {
  const chatApp = (env as unknown as { CHAT_APP: Fetcher }).CHAT_APP;
  const res = await chatApp.fetch("http://chat-app/", {
    method: "POST",
    body: JSON.stringify({ method: "runCalls", args: [key, "openai", message] }),
  });
  return ((await res.json()) as { returned: unknown }).returned;
}

const listed = async (query: string, key = ADMIN_KEY) => {
  const res = await request(`/v1/calls?limit=200&${query}`, { key });
  expect(res.status).toBe(200);
  return (await json(res)).calls as any[];
};
const idsOf = (calls: any[]) => calls.map((entry) => entry.record.callId);
/** An NDJSON body's lines, parsed (read as bytes: workerd warns on .text() of a non-text type). */
const ndjson = async (res: Response) =>
  new TextDecoder()
    .decode(await res.arrayBuffer())
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));

describe("GET /v1/calls filters", () => {
  it("records where each call came in (HTTP, MCP, a service binding) and filters by it", async () => {
    const tag = uid();
    expect((await request("/v1/calls/openai", { body: echoCall(`http-${tag}`, tag) })).status).toBe(200);
    expect(await runThroughBinding(CALL_KEY, echoCall(`bind-${tag}`, tag))).toMatchObject({ ok: true });
    const { client } = await connect();
    await client.callTool({ name: "echo", arguments: { text: `mcp ${tag}` } });
    await client.close();

    const http = await listed("surface=http&tool=echo");
    expect(idsOf(http)).toContain(`http-${tag}`);
    expect(idsOf(http)).not.toContain(`bind-${tag}`);
    expect(http.find((entry) => entry.record.callId === `http-${tag}`)).toMatchObject({
      surface: "http",
      key: "dev-call",
    });
    const binding = await listed("surface=binding&tool=echo");
    expect(idsOf(binding)).toContain(`bind-${tag}`);
    expect(binding.every((entry) => entry.surface === "binding")).toBe(true);
    const mcp = await listed("surface=mcp&tool=echo");
    const viaMcp = mcp.filter((entry) => entry.record.args?.text === `mcp ${tag}`);
    expect(viaMcp).toHaveLength(1);
    expect(viaMcp[0]).toMatchObject({ surface: "mcp", key: "dev-call" });
    expect(idsOf(mcp)).not.toContain(`http-${tag}`);
  });

  it("filters by call id prefix, key and time range", async () => {
    const tag = uid();
    for (const i of [1, 2, 3]) await request("/v1/calls/openai", { body: echoCall(`pre-${tag}-${i}`, "x") });
    await request("/v1/calls/openai", { key: ADMIN_KEY, body: echoCall(`pre-${tag}-admin`, "x") });
    await request("/v1/calls/openai", { body: echoCall(`other-${tag}`, "x") });

    expect(idsOf(await listed(`callId=pre-${tag}`))).toEqual([
      `pre-${tag}-admin`,
      `pre-${tag}-3`,
      `pre-${tag}-2`,
      `pre-${tag}-1`,
    ]);
    expect(idsOf(await listed(`callId=pre-${tag}-2`))).toEqual([`pre-${tag}-2`]);
    expect(idsOf(await listed(`callId=pre-${tag}&key=dev-admin`))).toEqual([`pre-${tag}-admin`]);
    // A call key reads only its own records, whatever key it asks for.
    expect(idsOf(await listed(`callId=pre-${tag}&key=dev-admin`, CALL_KEY))).toEqual([]);

    const first = (await listed(`callId=pre-${tag}-1`))[0].record.startedAt as number;
    const last = (await listed(`callId=other-${tag}`))[0].record.startedAt as number;
    expect(idsOf(await listed(`callId=pre-${tag}&until=${first}`))).toEqual([`pre-${tag}-1`]);
    const window = idsOf(await listed(`since=${first}&until=${new Date(last).toISOString()}`));
    expect(window).toContain(`other-${tag}`);
    expect(window).toContain(`pre-${tag}-1`);
    expect(idsOf(await listed(`callId=pre-${tag}&until=${first - 1}`))).toEqual([]);
  });

  it("refuses bad filters with 400 naming the parameter", async () => {
    for (const [query, word] of [
      ["surface=fax", "surface"],
      [`tool=${"x".repeat(257)}`, "tool"],
      ["until=yesterday", "until"],
      ["as=csv", "as"],
    ]) {
      const res = await request(`/v1/calls?${query}`, { key: ADMIN_KEY });
      expect(res.status).toBe(400);
      expect((await json(res)).error.message).toContain(word);
    }
  });
});

describe("GET /v1/calls?as=ndjson", () => {
  it("exports the filtered records, one entry per line, with a cursor line past the limit", async () => {
    const tag = uid();
    const ids = Array.from({ length: 5 }, (_, i) => `exp-${tag}-${i}`);
    for (const id of ids) await request("/v1/calls/openai", { body: echoCall(id, id) });

    const all = await request(`/v1/calls?as=ndjson&callId=exp-${tag}`, { key: ADMIN_KEY });
    expect(all.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    expect(all.headers.get("content-disposition")).toMatch(/^attachment; filename="toolgate-calls-demo\.ndjson"$/);
    const lines = await ndjson(all);
    expect(lines.map((entry) => entry.record.callId)).toEqual([...ids].reverse());
    expect(lines[0]).toMatchObject({ surface: "http", key: "dev-call", record: { args: { text: ids[4] } } });

    const part = await ndjson(await request(`/v1/calls?as=ndjson&callId=exp-${tag}&limit=2`, { key: ADMIN_KEY }));
    expect(part.slice(0, 2).map((entry) => entry.record.callId)).toEqual([ids[4], ids[3]]);
    expect(part[2]).toEqual({ nextCursor: expect.any(String) });
    const rest = await ndjson(
      await request(`/v1/calls?as=ndjson&callId=exp-${tag}&cursor=${part[2].nextCursor}`, { key: ADMIN_KEY }),
    );
    expect(rest.map((entry) => entry.record.callId)).toEqual([ids[2], ids[1], ids[0]]);
  });
});
