import { describe, expect, it } from "vitest";
import { uid } from "../helpers/adapters";
import { ADMIN_KEY, json, request } from "../helpers/requests";

/**
 * Found by CI: approved calls run detached, each in its own Runner object, and objects of one class
 * share an isolate. Their ledger writes once joined one group, so one object settled what another
 * awaited, which Workers refuse ("Cannot perform I/O on behalf of a different Durable Object"): the
 * run fails with unhandled errors even though every record ends right.
 */

const toolCall = (id: string, name: string, args: unknown) => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});

describe("detached runs started together", () => {
  it("each write their records on their own: sixteen approvals decided at once all succeed", async () => {
    const parked = Array.from({ length: 16 }, (_, i) => `together${i}-${uid()}`);
    const res = await request("/v1/calls/openai", {
      body: {
        role: "assistant",
        content: null,
        tool_calls: parked.map((id) => toolCall(id, "send_message", { to: "bob", text: "hi" })),
      },
    });
    expect(res.status).toBe(200);
    const decisions = await Promise.all(
      parked.map((id) => request(`/v1/approvals/${id}`, { key: ADMIN_KEY, body: { decision: "approve" } })),
    );
    expect(decisions.map((r) => r.status)).toEqual(parked.map(() => 202));
    for (const id of parked)
      expect((await json(await request(`/v1/calls/${id}?wait=10`))).record.status).toBe("succeeded");
  });
});
