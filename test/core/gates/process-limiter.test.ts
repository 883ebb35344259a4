import { describe, expect, it } from "vitest";
import type { SlotGrant, SlotRequest } from "../../../src/gates/limiter";
import { processLimiter } from "../../../src/gates/process-limiter";
import { nextTurn } from "../../wait";

const req = (callId: string, gate: string): SlotRequest => ({
  gate,
  rules: { limit: 1, maxQueue: 1 },
  callId,
  tool: "tool",
  leaseMs: 60_000,
});

function okGrant(grant: SlotGrant): Extract<SlotGrant, { ok: true }> {
  if (!grant.ok) throw new Error(`expected a grant, got ${grant.code}`);
  return grant;
}

// The module is fresh in this file: the first test's acquires arrive while the limiter still loads.
describe("the process-wide limiter, loaded on first acquire", () => {
  it("answers acquires made while it loads in their order: a slot, a queue place, busy", async () => {
    const first = processLimiter.acquire(req("first", "t:loading"));
    const second = processLimiter.acquire(req("second", "t:loading"));
    let secondAnswered = false;
    void second.then(() => (secondAnswered = true));
    const third = await processLimiter.acquire(req("third", "t:loading"));
    expect(third).toMatchObject({ ok: false, code: "busy" });
    const held = okGrant(await first);
    await nextTurn();
    expect(secondAnswered).toBe(false); // queued behind the holder
    await held.release();
    expect((await second).ok).toBe(true);
  });
});
