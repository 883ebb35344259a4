import { describe, expect, it } from "vitest";
import { uid } from "../helpers/adapters";
import { expectOneTerminalRecordEach } from "../helpers/faults";
import { waitPast } from "../../wait";
import { ADMIN_KEY, json, request } from "../helpers/requests";

/** Found by the load run: paging GET /v1/calls listed approved calls twice (or skipped others). */

const toolCall = (id: string, name: string, args: unknown) => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});

describe("listing calls whose record changed after they were parked", () => {
  it("pages every call exactly once when approved calls ran after later calls", async () => {
    // The demo tenant (no env override): deciding an approval needs the Worker's execution context.
    const parked = Array.from({ length: 4 }, (_, i) => `p${i}-${uid()}`);
    const later = Array.from({ length: 8 }, (_, i) => `a${i}-${uid()}`);
    // Each step starts once the clock has passed the previous one's records, so their times differ.
    const run = async (...calls: unknown[]) => {
      const res = await request("/v1/calls/openai", { body: { role: "assistant", content: null, tool_calls: calls } });
      expect(res.status).toBe(200);
      await waitPast(Math.max(...(await json(res)).calls.map((record: { startedAt: number }) => record.startedAt)));
    };
    await run(...parked.map((id) => toolCall(id, "send_message", { to: "bob", text: "hi" })));
    await run(...later.map((id, i) => toolCall(id, "add", { a: i, b: 1 })));
    for (const id of parked)
      expect((await request(`/v1/approvals/${id}`, { key: ADMIN_KEY, body: { decision: "approve" } })).status).toBe(
        202,
      );
    for (const id of parked)
      expect((await json(await request(`/v1/calls/${id}?wait=10`))).record.status).toBe("succeeded");

    await expectOneTerminalRecordEach({}, [...parked, ...later]);
    for (const limit of [2, 3, 5]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; ; pages++) {
        expect(pages, `pages of ${limit} end`).toBeLessThan(100);
        const page: any = await json(await request(`/v1/calls?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`));
        seen.push(...page.calls.map((entry: any) => entry.record.callId));
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      const mine = new Set([...parked, ...later]);
      expect(seen.filter((id) => mine.has(id)).sort(), `pages of ${limit}`).toEqual([...mine].sort());
    }
  });
});
