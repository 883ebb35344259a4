import { describe, expect, it } from "vitest";
import type { EventBatch, StoredEvent, Viewer } from "../../../worker/ledger/types";
import { eventStream, startPositions, type EventReader } from "../../../worker/routes/event-stream";
import { openSse } from "../helpers/sse";

/**
 * An in-memory shard: an event log, long-polls woken by appends, and a count of failures to throw
 * first, flagged as the platform flags a reset object's broken stub (retryable) unless `retryable` is false.
 */
function fakeShard(lastId: number, failures = 0, retryable = true) {
  const log: StoredEvent[] = [];
  let id = lastId;
  let wake: (() => void) | undefined;
  const calls: { after: number; viewer: Viewer }[] = [];
  const reader: EventReader = () => ({
    async events(after: number, waitMs: number, viewer: Viewer): Promise<EventBatch> {
      calls.push({ after, viewer });
      if (failures > 0) throw Object.assign(new Error(`shard reset (${failures--} left)`), { retryable });
      if (after < 0) return { events: [], last: id };
      let events = log.filter((e) => e.id > after);
      if (events.length === 0) await new Promise<void>((resolve) => ((wake = resolve), setTimeout(resolve, waitMs)));
      events = log.filter((e) => e.id > after);
      return { events, last: events.at(-1)?.id ?? after };
    },
  });
  const append = (data: Record<string, string>) => {
    log.push({ id: ++id, type: "call.finished", data });
    wake?.();
  };
  return { reader, append, calls };
}

/** A call-scope key's viewer. */
const K = { key: "k" };

describe("event stream start", () => {
  it("reads each unknown shard's position (retrying a reset one) and keeps resumed ones", async () => {
    const resumed = fakeShard(9);
    const fresh = fakeShard(7, 1);
    const positions = await startPositions([resumed.reader, fresh.reader], [3, -1], K);
    expect(positions).toEqual([3, 7]);
    expect(resumed.calls).toEqual([]); // a known position is not read again
    expect(fresh.calls).toEqual([
      { after: -1, viewer: K },
      { after: -1, viewer: K },
    ]);
    await expect(startPositions([fakeShard(0, 5).reader], null, null)).rejects.toMatchObject({
      status: 503,
      code: "unavailable",
    });
    // An error of the object's own code (not retryable) is not retried.
    const broken = fakeShard(0, 1, false);
    await expect(startPositions([broken.reader], null, null)).rejects.toThrow(/shard reset/);
    expect(broken.calls).toHaveLength(1);
  });

  it("sends ready with the start position first, then every event appended after it", async () => {
    const a = fakeShard(3);
    const b = fakeShard(7);
    const shards = [a.reader, b.reader];
    const stream = eventStream({
      shards,
      positions: await startPositions(shards, null, K),
      viewer: K,
      heartbeatMs: 60_000,
      pollMs: 1_000,
    });
    const sse = await openSse(new Response(stream));
    expect((await sse.ready()).id).toBe("3.7");
    b.append({ callId: "x" });
    a.append({ callId: "y" });
    const frames = await sse.until((fs) => fs.filter((f) => f.event === "call.finished").length === 2);
    await sse.close();
    const delivered = frames.filter((f) => f.event === "call.finished");
    expect(delivered.map((f) => f.data.callId).sort()).toEqual(["x", "y"]);
    expect(delivered.at(-1)!.id).toBe("4.8");
    expect(b.calls.every((c) => c.viewer === K)).toBe(true);
  });
});
