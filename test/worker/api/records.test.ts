import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createLedgerJournal } from "../../../worker/ledger/journal";
import { shardCount, shardOf, tenantLedger } from "../../../worker/ledger/address";
import { eventually } from "../../wait";
import { waitersOn } from "../helpers/durable-state";
import { json, request } from "../helpers/requests";
import { claim, record, uid } from "../helpers/ledger";

const toolCall = (id: string, name: string, args: unknown) => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});
const run = (...calls: unknown[]) =>
  request("/v1/calls/openai", { body: { role: "assistant", content: null, tool_calls: calls } });
/** The demo tenant's journal as its call key ("dev-call"), to seed records the demo tools cannot produce. */
const demoJournal = () => createLedgerJournal({ ledger: tenantLedger(env, "demo"), key: "dev-call" });

describe("GET /v1/calls", () => {
  it("reads a record by id and lists newest first with filters and stable paging", async () => {
    const tag = uid();
    const ids = Array.from({ length: 7 }, (_, i) => `list-${tag}-${i}`);
    for (const id of ids) expect((await run(toolCall(id, "echo", { text: id }))).status).toBe(200);
    await run(toolCall(`list-${tag}-bad`, "add", { a: "x", b: 1 }));

    const one = await json(await request(`/v1/calls/${ids[0]}`));
    expect(one.record).toMatchObject({ callId: ids[0], tool: "echo", status: "succeeded", args: { text: ids[0] } });

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await json(await request(`/v1/calls?tool=echo&limit=3${cursor ? `&cursor=${cursor}` : ""}`));
      expect(page.calls.length).toBeLessThanOrEqual(3);
      seen.push(...page.calls.map((entry: any) => entry.record.callId));
      cursor = page.nextCursor;
    } while (cursor);
    const mine = seen.filter((id) => id.startsWith(`list-${tag}`));
    expect(new Set(seen).size).toBe(seen.length); // no call twice across pages
    expect(mine).toEqual([...ids].reverse()); // every call, newest first

    const rejected = await json(await request(`/v1/calls?status=rejected&limit=200`));
    expect(rejected.calls.map((entry: any) => entry.record.callId)).toContain(`list-${tag}-bad`);
    expect(rejected.calls.every((entry: any) => entry.record.status === "rejected")).toBe(true);
    const future = await json(await request(`/v1/calls?since=${Date.now() + 60_000}`));
    expect(future.calls).toEqual([]);
  });

  it("answers 404 for an unknown id and 400 for a bad query", async () => {
    expect((await request(`/v1/calls/nope-${uid()}`)).status).toBe(404);
    expect((await request(`/v1/calls?limit=0`)).status).toBe(400);
    expect((await request(`/v1/calls?status=weird`)).status).toBe(400);
    expect((await request(`/v1/calls?cursor=!!`)).status).toBe(400);
  });

  it("long-polls a pending call until its decision", async () => {
    const id = `wait-${uid()}`;
    await run(toolCall(id, "send_message", { to: "bob", text: "hi" }));
    const started = Date.now();
    const waiting = request(`/v1/calls/${id}?wait=10`);
    // Decided while the read waits for it in the shard: the decision wakes it.
    const shard = tenantLedger(env, "demo").shard(shardOf(id, shardCount(env))) as unknown as DurableObjectStub;
    await eventually(async () => (await waitersOn(shard, id)) > 0, "the read waits in the shard");
    expect(
      (await request(`/v1/approvals/${id}`, { key: "dev-admin-key", body: { decision: "deny", reason: "not now" } }))
        .status,
    ).toBe(200);
    const entry = await json(await waiting);
    expect(entry.record.status).toBe("denied");
    expect(entry.approval).toMatchObject({ state: "denied", reason: "not now" });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("GET /v1/calls/:id/result", () => {
  it("pages the full output of a result too large for a row", async () => {
    const id = `big-${uid()}`;
    const text = Array.from({ length: 30_000 }, (_, i) => `line ${i}\n`).join(""); // ~290k characters
    const journal = demoJournal();
    await journal.begin(claim("demo", id));
    await journal.finish(record("demo", id, "succeeded", { output: { content: [{ type: "text", text }] } }));

    const entry = await json(await request(`/v1/calls/${id}`));
    expect(entry.truncated).toBe(true);
    expect(entry.resultChars).toBe(text.length);
    expect(JSON.stringify(entry.record).length).toBeLessThan(70_000);

    let offset = 0;
    let whole = "";
    for (;;) {
      const page = await json(await request(`/v1/calls/${id}/result?offset=${offset}&limit=100000`));
      expect(page.total).toBe(text.length);
      whole += page.text;
      if (page.nextOffset === null) break;
      offset = page.nextOffset;
    }
    expect(whole).toBe(text);
    const middle = await json(await request(`/v1/calls/${id}/result?offset=12345&limit=20`));
    expect(middle.text).toBe(text.slice(12345, 12365));
  });

  it("answers 404 no_output for a call without output", async () => {
    const id = `err-${uid()}`;
    await run(toolCall(id, "fail", { message: "nope" }));
    const res = await request(`/v1/calls/${id}/result`);
    expect(res.status).toBe(404);
    expect((await json(res)).error.code).toBe("no_output");
  });
});

describe("POST /v1/calls/:id/cancel", () => {
  it("cancels a pending call once, and refuses a finished one", async () => {
    const id = `cancel-${uid()}`;
    await run(toolCall(id, "send_message", { to: "ann", text: "hello" }));
    const res = await request(`/v1/calls/${id}/cancel`, { body: { reason: "changed my mind" } });
    expect(res.status).toBe(200);
    expect((await json(res)).call.record).toMatchObject({ status: "cancelled", error: { code: "cancelled" } });
    const again = await request(`/v1/calls/${id}/cancel`, { method: "POST" });
    expect(again.status).toBe(409);
    // It left the approval list.
    const list = await json(await request(`/v1/approvals`, { key: "dev-admin-key" }));
    expect(list.approvals.map((a: any) => a.callId)).not.toContain(id);
    expect((await request(`/v1/calls/nope-${uid()}/cancel`, { method: "POST" })).status).toBe(404);
  });
});
