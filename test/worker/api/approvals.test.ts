import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tenantLedger } from "../../../worker/ledger/address";
import { ADMIN_KEY, CALL_KEY_HASH, json, request, tenantConfig, untilApprovalDue } from "../helpers/requests";
import { tune, uid } from "../helpers/ledger";

const send = (id: string, to = "bob", text = "hi") =>
  request("/v1/calls/openai", {
    body: {
      role: "assistant",
      content: null,
      tool_calls: [
        { id, type: "function", function: { name: "send_message", arguments: JSON.stringify({ to, text }) } },
      ],
    },
  });
const decide = (id: string, decision: string, reason?: string) =>
  request(`/v1/approvals/${id}`, { key: ADMIN_KEY, body: reason === undefined ? { decision } : { decision, reason } });
/** The call key ("k") and the demo admin key ("a"), for a tenant of its own. */
const BOTH_KEYS = [
  { name: "k", hash: CALL_KEY_HASH, scopes: ["call"] },
  { name: "a", hash: "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9", scopes: ["admin"] },
];
const shardStub = (id: string) => tenantLedger(env, "demo").for(id) as unknown as DurableObjectStub;

describe("approvals", () => {
  it("lists a parked call with its arguments and runs it once approved", async () => {
    const id = `ok-${uid()}`;
    const parked = await json(await send(id, "carol", "lunch?"));
    expect(parked.calls[0].status).toBe("pending");

    const list = await json(await request("/v1/approvals?limit=200", { key: ADMIN_KEY }));
    expect(list.approvals.find((a: any) => a.callId === id)).toMatchObject({
      tool: "send_message",
      args: { to: "carol", text: "lunch?" },
    });
    expect(list.approvals.find((a: any) => a.callId === id).expiresAt).toBeGreaterThan(Date.now());

    const res = await decide(id, "approve");
    expect(res.status).toBe(202);
    const done = await json(await request(`/v1/calls/${id}?wait=10`));
    expect(done.record).toMatchObject({
      status: "succeeded",
      permission: "allow",
      output: { structured: { delivered: true, to: "carol" } },
    });
    expect(done.approval.state).toBe("approved");

    // The model sending the same call again gets the outcome, not a second message.
    const replay = await json(await send(id, "carol", "lunch?"));
    expect(replay.calls[0]).toMatchObject({ status: "succeeded", replay: true });
    const after = await json(await request("/v1/approvals?limit=200", { key: ADMIN_KEY }));
    expect(after.approvals.map((a: any) => a.callId)).not.toContain(id);
  });

  it("records a denial's reason, and refuses a second decision", async () => {
    const id = `no-${uid()}`;
    await send(id);
    const res = await decide(id, "deny", "not to bob");
    expect(res.status).toBe(200);
    expect((await json(res)).call.record).toMatchObject({ status: "denied", error: { code: "denied" } });

    const twice = await decide(id, "approve");
    expect(twice.status).toBe(409);
    expect((await json(twice)).error.code).toBe("already_decided");

    const replay = await json(await send(id));
    expect(replay.calls[0]).toMatchObject({ status: "denied", replay: true });
    expect(replay.calls[0].error.message).toContain("not to bob");
  });

  it("expires a pending approval into a denial by the ledger's alarm", async () => {
    const id = `exp-${uid()}`;
    await tune(shardStub(id), { approvalTtlMs: 30 });
    expect((await json(await send(id))).calls[0].status).toBe("pending");
    await untilApprovalDue(id);
    // Only the shard's alarm expires approvals; it may already have run on its own: either way, once.
    await runDurableObjectAlarm(shardStub(id));
    const entry = await json(await request(`/v1/calls/${id}`));
    expect(entry.record).toMatchObject({ status: "denied", error: { code: "denied" } });
    expect(entry.approval.state).toBe("expired");
    expect((await decide(id, "approve")).status).toBe(409);
    await tune(shardStub(id), { approvalTtlMs: 24 * 3600_000 });
  });

  it("needs the admin scope to decide (a call key lists its own, not decidable) and a valid decision", async () => {
    const id = `scope-${uid()}`;
    await send(id);
    const own = await json(await request("/v1/approvals?limit=200"));
    expect(own.approvals.find((a: { callId: string }) => a.callId === id)).toMatchObject({
      decidable: false,
      user: null,
    });
    expect(own.approvals.every((a: { key: string }) => a.key === "dev-call")).toBe(true);
    expect((await request(`/v1/approvals/${id}`, { body: { decision: "approve" } })).status).toBe(403);
    expect((await decide(id, "maybe")).status).toBe(400);
    expect((await decide(`missing-${uid()}`, "deny")).status).toBe(404);
  });

  it("says who asked, through which surface, which rules require approval and the risk", async () => {
    const id = `ctx-${uid()}`;
    await send(id, "dana", "context");
    const list = await json(await request("/v1/approvals?limit=200", { key: ADMIN_KEY }));
    expect(list.approvals.find((a: any) => a.callId === id)).toMatchObject({
      key: "dev-call",
      surface: "http",
      risk: "high",
      reasons: [{ rule: "policy.approval", detail: expect.stringContaining('approval: "always"') }],
    });
    await decide(id, "deny");

    // A tenant's own rule is named as it is written.
    const vars = {
      TOOLGATE_CONFIG: tenantConfig({ name: `appr-${uid()}`, keys: BOTH_KEYS, requireApprovalFor: { tools: ["add"] } }),
    };
    const addId = `add-${uid()}`;
    const call = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: addId, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }],
    };
    expect((await json(await request("/v1/calls/openai", { env: vars, body: call }))).calls[0].status).toBe("pending");
    const theirs = await json(await request("/v1/approvals", { env: vars, key: ADMIN_KEY }));
    expect(theirs.approvals[0]).toMatchObject({
      callId: addId,
      key: "k",
      risk: "low",
      reasons: [{ rule: "requireApprovalFor.tools" }],
    });
  });
});
