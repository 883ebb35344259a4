import { describe, expect, it } from "vitest";
import { sessionCallId } from "../../../worker/mcp/v2025/call-ids";
import { checkSessionId } from "../../../worker/mcp/v2025/session";
import { eventually } from "../../wait";
import { faultTenant } from "../helpers/faults";
import { CALL_KEY_HASH, json, request } from "../helpers/requests";
import {
  connect,
  connectV2,
  MCP_URL,
  mcpFetch,
  MODERN,
  modernMeta,
  openSession,
  post,
  type McpTarget,
} from "../helpers/mcp";

/**
 * Calls that outlive their request, over MCP: a tools/call of a detached tool (the demo's
 * slow_report, in its own Runner object) or of an auto one past detachAfterMs waits for the call's
 * outcome while the client stays connected, relays its progress, and cancels it through the ledger
 * when the client cancels (legacy: notifications/cancelled; 2026: closing the request).
 */

const keyHash = Uint8Array.from(CALL_KEY_HASH.match(/../g)!, (byte) => parseInt(byte, 16));

function tenant(prefix: string, patch: Record<string, unknown> = {}) {
  const { env } = faultTenant(prefix, { tools: ["slow_report", "sleep_pool"], ...patch });
  return { env, target: { vars: env as Record<string, string> } as McpTarget };
}

async function records(env: Record<string, unknown>, tool: string): Promise<any[]> {
  return (await json(await request(`/v1/calls?tool=${tool}`, { env }))).calls.map(
    (entry: { record: unknown }) => entry.record,
  );
}

describe("a detached tool over MCP", () => {
  it("2026-07-28 (the v2 client, pinned): the answer is the call's outcome, with its progress on the way", async () => {
    const { target } = tenant("mdet");
    const client = await connectV2({ pin: MODERN }, target);
    const progress: [number, number | undefined][] = [];
    const result = await client.callTool(
      { name: "slow_report", arguments: { seconds: 2 } },
      { onprogress: (p) => progress.push([p.progress, p.total]) },
    );
    await client.close();
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ seconds: 2 });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toEqual([2, 2]);
    expect(progress.map(([p]) => p)).toEqual([...progress.map(([p]) => p)].sort((a, b) => a - b));
  });

  it("2025-11-25 (the v1 client): the same", async () => {
    const { target } = tenant("mdet1");
    const { client } = await connect(target);
    const progress: number[] = [];
    const result = await client.callTool({ name: "slow_report", arguments: { seconds: 1 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    await client.close();
    expect(result.structuredContent).toMatchObject({ seconds: 1 });
    expect(progress.at(-1)).toBe(1);
  });

  it("an auto call past its detachAfterMs is waited for as well: the answer is its outcome, not that it runs on", async () => {
    const { env, target } = tenant("mauto", { policies: { sleep_pool: { execution: "auto", detachAfterMs: 100 } } });
    const client = await connectV2({ pin: MODERN }, target);
    const result = await client.callTool({ name: "sleep_pool", arguments: { ms: 600 } });
    await client.close();
    expect(result.structuredContent).toMatchObject({ ms: 600 });
    expect((await records(env, "sleep_pool"))[0]).toMatchObject({ status: "succeeded" });
  });

  it("legacy: notifications/cancelled cancels the detached run through the ledger", async () => {
    const { env, target } = tenant("mdetc");
    const headers = await openSession(target);
    const { ref } = (await checkSessionId(headers["mcp-session-id"]!, keyHash))!;
    const answer = post(
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "slow_report", arguments: { seconds: 60 } } },
      headers,
      target,
    );
    const callId = sessionCallId(ref, 5);
    await eventually(
      async () => (await request(`/v1/calls/${callId}`, { env })).status === 200,
      "the report is claimed",
    );
    expect(
      (await post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } }, headers, target))
        .status,
    ).toBe(202);
    const { result } = (await (await answer).json()) as any;
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("cancelled") }] });
    expect((await json(await request(`/v1/calls/${callId}`, { env }))).record.status).toBe("cancelled");
  });

  it("2026-07-28: a client that closes its request cancels the detached run through the ledger", async () => {
    const { env, target } = tenant("mdetg");
    const client = new AbortController();
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "slow_report", arguments: { seconds: 60 }, _meta: modernMeta() },
    };
    const answered = mcpFetch(target)(MCP_URL, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": "slow_report",
      },
      body: JSON.stringify(body),
      signal: client.signal,
    }).catch(() => undefined);
    let callId = "";
    await eventually(async () => {
      callId = (await records(env, "slow_report"))[0]?.callId ?? "";
      return callId !== "";
    }, "the report is claimed");
    client.abort();
    await answered;
    const { record } = await json(await request(`/v1/calls/${callId}?wait=10`, { env }));
    expect(record.status).toBe("cancelled");
  });
});
