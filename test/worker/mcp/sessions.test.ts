import { runDurableObjectAlarm } from "cloudflare:test";
import { env as bindings } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { shardCount, shardOf, tenantLedger } from "../../../worker/ledger/address";
import { sessionCallId } from "../../../worker/mcp/v2025/call-ids";
import { checkSessionId, createSessionId, SESSION_TTL_MS } from "../../../worker/mcp/v2025/session";
import { eventually } from "../../wait";
import { faultTenant } from "../helpers/faults";
import { CALL_KEY_HASH, json, request } from "../helpers/requests";
import { connect, initializeRequest, MCP_URL, mcpFetch, openSession, post, type McpTarget } from "../helpers/mcp";

/**
 * Legacy MCP sessions keep nothing in an isolate: their log level and their deletion are in the
 * tenant's ledger, and their calls' ids derive from the session and the JSON-RPC request id. These
 * tests act as "another isolate" by writing to the ledger directly, and by cancelling a call knowing
 * only its session and request id, the way any isolate receiving the client's message does.
 */

const keyHash = Uint8Array.from(CALL_KEY_HASH.match(/../g)!, (byte) => parseInt(byte, 16));

function tenant(prefix: string) {
  const { name, env } = faultTenant(prefix, { tools: ["add", "sleep_pool", "test_logging_tool"] });
  const target: McpTarget = { vars: env as Record<string, string> };
  return { name, env, target, ledger: tenantLedger(bindings, name) };
}

async function sessionOf(target: McpTarget) {
  const headers = await openSession(target);
  const session = (await checkSessionId(headers["mcp-session-id"]!, keyHash))!;
  return { headers, session };
}

const callOf = (id: number | string, name: string, args: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});
const ping = { jsonrpc: "2.0", id: 1, method: "ping" };

/** The data lines of an SSE body (or the one JSON body), parsed. */
async function messages(res: Response): Promise<any[]> {
  const text = await res.text();
  if (!res.headers.get("content-type")?.includes("text/event-stream")) return [JSON.parse(text)];
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));
}

const logLevels = async (res: Response) =>
  (await messages(res)).filter((m) => m.method === "notifications/message").map((m) => m.params.level);

async function untilRunning(env: Record<string, unknown>, callId: string) {
  await eventually(async () => {
    const res = await request(`/v1/calls/${callId}`, { env });
    return res.status === 200 && (await json(res)).record.status === "running";
  }, `${callId} runs`);
}

describe("a legacy session's state lives in the ledger", () => {
  it("logging/setLevel is stored on the session's shard, and a level written there by anyone is the one applied", async () => {
    const { target, ledger } = tenant("mlvl");
    const { headers, session } = await sessionOf(target);
    await post({ jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "error" } }, headers, target);
    expect(await ledger.for(session.ref).mcpSession(session.ref)).toEqual({ level: "error", ended: false });
    expect(await logLevels(await post(callOf(3, "test_logging_tool", {}), headers, target))).toEqual(["error"]);

    // As if another isolate had received logging/setLevel "debug".
    await ledger.for(session.ref).setMcpSessionLevel(session.ref, "debug", session.expiresAt);
    expect(await logLevels(await post(callOf(4, "test_logging_tool", {}), headers, target))).toEqual([
      "debug",
      "info",
      "warning",
      "error",
    ]);
  });

  it("a DELETE is stored too: the id is refused from then on wherever it lands", async () => {
    const { target, ledger } = tenant("mdel");
    const { headers, session } = await sessionOf(target);
    expect((await post(ping, headers, target)).status).toBe(200);
    // As if another isolate had received the DELETE.
    await ledger.for(session.ref).endMcpSession(session.ref, session.expiresAt);
    const refused = await post(ping, headers, target);
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as any).error.code).toBe(-32001);
  });

  it("a DELETE cancels the session's running calls through the ledger", async () => {
    const { env, target, ledger } = tenant("mdelc");
    const { headers, session } = await sessionOf(target);
    const running = post(callOf(41, "sleep_pool", { ms: 20_000 }), headers, target);
    const callId = sessionCallId(session.ref, 41);
    await untilRunning(env, callId);
    const deleted = await mcpFetch(target)(MCP_URL, { method: "DELETE", headers });
    expect(deleted.status).toBe(200);
    expect(await ledger.for(session.ref).mcpSession(session.ref)).toMatchObject({ ended: true });
    const answer: any = await (await running).json();
    expect(answer.result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("cancelled") }] });
    expect((await json(await request(`/v1/calls/${callId}`, { env }))).record.status).toBe("cancelled");
  });

  it("an id past its lifetime is refused, and its row leaves the ledger once it expired", async () => {
    const { target, ledger } = tenant("mexp");
    const old = await createSessionId(keyHash, Date.now() - SESSION_TTL_MS - 1_000);
    expect((await post(ping, { "mcp-session-id": old, "mcp-protocol-version": "2025-11-25" }, target)).status).toBe(
      404,
    );

    const { session } = await sessionOf(target);
    // The session's shard itself (the alarm runs on a real stub): fixed by version 1 of the map.
    const shard = ledger.shard(shardOf(session.ref, shardCount(bindings)));
    const expiresAt = Date.now() + 50;
    await shard.setMcpSessionLevel(session.ref, "debug", expiresAt);
    await eventually(async () => Date.now() > expiresAt, "the row's expiry passed");
    await runDurableObjectAlarm(shard as unknown as DurableObjectStub);
    expect(await shard.mcpSession(session.ref)).toEqual({ level: null, ended: false });
  });
});

describe("a legacy session's cancels go through the ledger", () => {
  it("notifications/cancelled finds the call by its session and request id, and the call ends cancelled", async () => {
    const { env, target } = tenant("mcan");
    const { headers, session } = await sessionOf(target);
    const running = post(callOf("job-7", "sleep_pool", { ms: 20_000 }), headers, target);
    // Any isolate can name the call: its id derives from the session and the request id alone.
    const callId = sessionCallId(session.ref, "job-7");
    await untilRunning(env, callId);
    const cancel = await post(
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "job-7", reason: "changed my mind" } },
      headers,
      target,
    );
    expect(cancel.status).toBe(202);
    const answer: any = await (await running).json();
    expect(answer.result).toEqual({
      isError: true,
      content: [{ type: "text", text: 'Error [cancelled]: The call to "sleep_pool" was cancelled.' }],
    });
    expect((await json(await request(`/v1/calls/${callId}`, { env }))).record.status).toBe("cancelled");
  });

  it("a cancel that arrives before its call is claimed is tried again until the ledger knows the call", async () => {
    const { env, target } = tenant("mcanx");
    const { headers, session } = await sessionOf(target);
    expect(
      (await post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 8 } }, headers, target))
        .status,
    ).toBe(202);
    const answer: any = await (await post(callOf(8, "sleep_pool", { ms: 20_000 }), headers, target)).json();
    expect(answer.result.isError).toBe(true);
    expect((await json(await request(`/v1/calls/${sessionCallId(session.ref, 8)}`, { env }))).record.status).toBe(
      "cancelled",
    );
  });

  it("the same request id sent again in a session is the same call: its outcome is answered again, the tool does not run twice", async () => {
    const { env, target } = tenant("mrep");
    const { headers, session } = await sessionOf(target);
    const first: any = await (await post(callOf(9, "sleep_pool", { ms: 5 }), headers, target)).json();
    const again: any = await (await post(callOf(9, "sleep_pool", { ms: 5 }), headers, target)).json();
    expect(again.result).toEqual(first.result);
    const { record } = await json(await request(`/v1/calls/${sessionCallId(session.ref, 9)}`, { env }));
    expect(record).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it("sessions of one key never share call ids", async () => {
    const { target } = tenant("mids");
    const a = await sessionOf(target);
    const b = await sessionOf(target);
    expect(sessionCallId(a.session.ref, 1)).not.toBe(sessionCallId(b.session.ref, 1));
    expect(sessionCallId(a.session.ref, 1)).not.toBe(sessionCallId(a.session.ref, "1"));
    expect((await post(initializeRequest(), {}, target)).headers.get("mcp-session-id")).not.toBe(
      a.headers["mcp-session-id"],
    );
  });
});

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * Other spellings of a session id `<issued>.<random>.<tag>` (16 bytes each: 22 characters, whose
 * last one carries 2 bits and 4 unused ones) that lenient parsing reads as the same parts.
 */
function otherSpellings(id: string): Record<string, string> {
  const [issued, random, tag] = id.split(".") as [string, string, string];
  const unusedBitSet = (part: string) => part.slice(0, -1) + BASE64URL[BASE64URL.indexOf(part.at(-1)!) ^ 1];
  return {
    "a trailing dot": `${id}.`,
    padding: `${id}==`,
    "an unused bit set in the tag": `${issued}.${random}.${unusedBitSet(tag)}`,
    "an unused bit set in the random part": `${issued}.${unusedBitSet(random)}.${tag}`,
    "base64 instead of base64url": id.replace(/-/g, "+").replace(/_/g, "/"),
    "upper case": `${issued.toUpperCase()}.${random}.${tag}`,
    "a leading zero": `0${id}`,
    "an empty fourth part": `${id}.0`,
    "a space inside": `${issued}. ${random}.${tag}`,
  };
}

describe("a legacy session id has one spelling", () => {
  it("every other spelling of an id is refused, before and after the session's DELETE (v1 client)", async () => {
    const { target } = tenant("mspell");
    // An id whose parts hold "-" or "_", so that its base64 spelling differs (most do).
    let opened = await connect(target);
    for (let tries = 1; !/[-_]/.test(opened.transport.sessionId!); tries++) {
      if (tries > 30) throw new Error("no session id with - or _ in 30 tries");
      await opened.client.close();
      opened = await connect(target);
    }
    const { client, transport } = opened;
    const id = transport.sessionId!;
    expect((await client.callTool({ name: "add", arguments: { a: 1, b: 2 } })).structuredContent).toEqual({ sum: 3 });
    const headers = (sessionId: string) => ({ "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" });
    const status = async (sessionId: string) => (await post(ping, headers(sessionId), target)).status;
    const statuses = async (ids: Record<string, string>) => {
      const seen = await Promise.all(Object.entries(ids).map(async ([name, spelled]) => [name, await status(spelled)]));
      return Object.fromEntries(seen);
    };
    const spellings = otherSpellings(id);
    expect(new Set(Object.values(spellings)).size).toBe(Object.keys(spellings).length);
    expect(Object.values(spellings)).not.toContain(id);

    expect(await statuses(spellings)).toEqual(Object.fromEntries(Object.keys(spellings).map((name) => [name, 404])));
    // Whitespace around a header's value is not part of it (RFC 9110): the same id.
    expect([await status(id), await status(` ${id}\t`)]).toEqual([200, 200]);

    await transport.terminateSession();
    expect(await statuses(spellings)).toEqual(Object.fromEntries(Object.keys(spellings).map((name) => [name, 404])));
    expect([await status(id), await status(` ${id}\t`)]).toEqual([404, 404]);
    await client.close();
  });
});
