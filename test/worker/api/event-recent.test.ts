import { describe, expect, it } from "vitest";
import type { RecentEvent, Viewer } from "../../../worker/ledger/types";
import { recentStarts, type RecentReader } from "../../../worker/routes/event-recent";

/** A shard whose event log is `events` (oldest first, ids ascending) and whose newest id is `last`. */
function shard(events: RecentEvent[], last = events.at(-1)?.id ?? 0) {
  const asked: { count: number; viewer: Viewer }[] = [];
  const reader: RecentReader = () => ({
    async recentEvents(count: number, viewer: Viewer) {
      asked.push({ count, viewer });
      return { events: events.slice(-count).reverse(), last };
    },
  });
  return { reader, asked };
}

describe("recentStarts", () => {
  it("starts each shard just before its share of the newest events of all shards, by time", async () => {
    const a = shard([
      { id: 1, at: 10 },
      { id: 2, at: 30 },
      { id: 3, at: 50 },
    ]);
    const b = shard([
      { id: 5, at: 20 },
      { id: 6, at: 40 },
    ]);
    const empty = shard([], 9); // only other keys' events: it starts at its newest
    // The newest three are 50 (a:3), 40 (b:6) and 30 (a:2).
    expect(await recentStarts([a.reader, b.reader, empty.reader], 3, { key: "k" })).toEqual({
      positions: [1, 5, 9],
      count: 3,
    });
    expect(a.asked).toEqual([{ count: 3, viewer: { key: "k" } }]);
    // More than there are: every shard from its oldest event.
    expect(await recentStarts([a.reader, b.reader, empty.reader], 10, null)).toEqual({
      positions: [0, 4, 9],
      count: 5,
    });
    expect(await recentStarts([a.reader, b.reader], 1, null)).toEqual({ positions: [2, 6], count: 1 });
  });

  it("takes exactly the count asked for when times tie, each shard a run of its newest", async () => {
    const a = shard([
      { id: 1, at: 40 },
      { id: 2, at: 40 },
    ]);
    const b = shard([
      { id: 7, at: 40 },
      { id: 8, at: 40 },
    ]);
    const { positions, count } = await recentStarts([a.reader, b.reader], 3, null);
    expect(count).toBe(3);
    // Three of the four, whichever shard gives two: what lies after each position adds up to 3.
    const after = [
      [1, 2],
      [7, 8],
    ].map((ids, i) => ids.filter((id) => id > positions[i]!).length);
    expect(after[0]! + after[1]!).toBe(3);
    // An event without a time (at 0) is older than any with one.
    const timeless = shard([{ id: 3, at: 0 }]);
    expect(await recentStarts([a.reader, timeless.reader], 2, null)).toEqual({ positions: [0, 3], count: 2 });
  });
});
