import { env as workerEnv } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { shardCount, shardOf } from "../../../worker/ledger/address";
import { ADMIN_KEY, CALL_KEY, CALL_KEY_HASH, json, request } from "../helpers/requests";
import { uid } from "../helpers/ledger";
import { openSse, type Sse } from "../helpers/sse";

// Two call-scope keys and an admin in one tenant: each call key reads only the calls made with it.
const OTHER_KEY = "other-call-key";
const ADMIN_HASH = "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9";

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function tenantEnv() {
  const config = {
    name: `own-${uid()}`,
    tools: ["add", "send_message"],
    keys: [
      { name: "alice", hash: CALL_KEY_HASH, scopes: ["call"] },
      { name: "bob", hash: await sha256(OTHER_KEY), scopes: ["call"] },
      { name: "boss", hash: ADMIN_HASH, scopes: ["admin"] },
    ],
  };
  return { TOOLGATE_CONFIG: JSON.stringify(config) };
}

const call = (id: string, name: string, args: unknown) => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
});

describe("own records only", () => {
  it("shows a call key its own records, answers 404 for another key's, and admin everything", async () => {
    const env = await tenantEnv();
    const as = (key: string) => (path: string, body?: unknown) =>
      request(path, { env, key, ...(body === undefined ? {} : { body }) });
    const [alice, bob, admin] = [as(CALL_KEY), as(OTHER_KEY), as(ADMIN_KEY)];
    const mine = `a-${uid()}`;
    const theirs = `b-${uid()}`;
    expect((await alice("/v1/calls/openai", call(mine, "add", { a: 1, b: 2 }))).status).toBe(200);
    expect((await bob("/v1/calls/openai", call(theirs, "add", { a: 3, b: 4 }))).status).toBe(200);

    const own = await json(await alice(`/v1/calls/${mine}`));
    expect(own).toMatchObject({ key: "alice", record: { callId: mine, status: "succeeded" } });
    for (const path of [`/v1/calls/${mine}`, `/v1/calls/${mine}?wait=5`, `/v1/calls/${mine}/result`]) {
      const res = await bob(path);
      expect(res.status).toBe(404);
      expect((await json(res)).error.code).toBe("not_found");
    }
    const cancel = await request(`/v1/calls/${mine}/cancel`, { env, key: OTHER_KEY, method: "POST" });
    expect(cancel.status).toBe(404);
    expect((await json(await admin(`/v1/calls/${mine}`))).key).toBe("alice");
    expect((await admin(`/v1/calls/${theirs}/result`)).status).toBe(200);

    const ids = async (who: typeof alice) =>
      (await json(await who("/v1/calls?limit=200"))).calls.map((e: any) => e.record.callId);
    expect(await ids(alice)).toEqual([mine]);
    expect(await ids(bob)).toEqual([theirs]);
    expect((await ids(admin)).sort()).toEqual([mine, theirs].sort());
  });

  it("keeps a call id per tenant: another key reusing it gets conflict, never the stored outcome", async () => {
    const env = await tenantEnv();
    const id = `dup-${uid()}`;
    const first = await json(await request("/v1/calls/openai", { env, body: call(id, "add", { a: 1234, b: 4321 }) }));
    expect(first.messages[0].content).toMatch(/sum\W*5555/);

    // Same tool and arguments from another key: conflict, and nothing of the first call's result.
    const stolen = await json(
      await request("/v1/calls/openai", { env, key: OTHER_KEY, body: call(id, "add", { a: 1234, b: 4321 }) }),
    );
    expect(stolen.calls[0]).toMatchObject({ status: "rejected", error: { code: "conflict" } });
    expect(stolen.calls[0].output).toBeUndefined();
    // The sum as an output carries it (a bare "5555" can be digits of a timestamp).
    expect(JSON.stringify(stolen)).not.toMatch(/sum\W*5555/);
    expect(JSON.stringify(stolen)).not.toContain("alice");
    // The same from admin's key: the id is still alice's.
    const admins = await json(
      await request("/v1/calls/openai", { env, key: ADMIN_KEY, body: call(id, "add", { a: 1234, b: 4321 }) }),
    );
    expect(admins.calls[0]).toMatchObject({ error: { code: "conflict" } });

    // The owner retrying still gets its replay; the record is unchanged and still alice's.
    const again = await json(await request("/v1/calls/openai", { env, body: call(id, "add", { a: 1234, b: 4321 }) }));
    expect(again.calls[0]).toMatchObject({ status: "succeeded", replay: true });
    expect((await request(`/v1/calls/${id}`, { env, key: OTHER_KEY })).status).toBe(404);
    expect(await json(await request(`/v1/calls/${id}`, { env, key: ADMIN_KEY }))).toMatchObject({
      key: "alice",
      record: { status: "succeeded" },
    });
  });

  it("lets only the calling key cancel its pending call; an admin's approval keeps it the caller's", async () => {
    const env = await tenantEnv();
    const parked = `p-${uid()}`;
    await request("/v1/calls/openai", { env, body: call(parked, "send_message", { to: "ann", text: "hi" }) });
    expect((await request(`/v1/calls/${parked}/cancel`, { env, key: OTHER_KEY, method: "POST" })).status).toBe(404);
    const res = await request(`/v1/calls/${parked}/cancel`, { env, method: "POST" });
    expect(res.status).toBe(200);

    const approved = `q-${uid()}`;
    await request("/v1/calls/openai", { env, body: call(approved, "send_message", { to: "ann", text: "yo" }) });
    expect(
      (await request(`/v1/approvals/${approved}`, { env, key: ADMIN_KEY, body: { decision: "deny" } })).status,
    ).toBe(200);
    expect(await json(await request(`/v1/calls/${approved}`, { env }))).toMatchObject({
      key: "alice",
      record: { status: "denied" },
    });
  });

  it("streams a call key only its own events (also through an event token)", async () => {
    const env = await tenantEnv();
    // Both calls on one shard, alice's first: bob's stream reads alice's events before his own.
    const shards = shardCount(workerEnv);
    const hers = `e-${uid()}`;
    let his = `f-${uid()}`;
    while (shardOf(his, shards) !== shardOf(hers, shards)) his = `f-${uid()}`;

    const token = (await json(await request("/v1/events/token", { env, key: OTHER_KEY, method: "POST" }))).token;
    const bobs = await openSse(await request(`/v1/events?token=${encodeURIComponent(token)}`, { env, key: null }));
    const admins = await openSse(await request("/v1/events", { env, key: ADMIN_KEY }));
    await Promise.all([bobs.ready(), admins.ready()]);

    await request("/v1/calls/openai", { env, body: call(hers, "add", { a: 1, b: 1 }) });
    await request("/v1/calls/openai", { env, key: OTHER_KEY, body: call(his, "add", { a: 2, b: 2 }) });
    const finished = (id: string) => (frames: Sse[]) =>
      frames.some((f) => f.event === "call.finished" && f.data.callId === id);
    const seenByBob = await bobs.until(finished(his));
    const seenByAdmin = await admins.until((fs) => finished(his)(fs) && finished(hers)(fs));
    await Promise.all([bobs.close(), admins.close()]);

    expect(seenByBob.filter((f) => f.data?.callId).map((f) => [f.event, f.data.callId, f.data.key])).toEqual([
      ["call.started", his, "bob"],
      ["call.finished", his, "bob"],
    ]);
    expect(seenByAdmin.filter((f) => f.data?.callId === hers).map((f) => f.data.key)).toEqual(["alice", "alice"]);
  });
});
