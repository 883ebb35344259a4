import { callDurable } from "../durable/call";
import type { RecentEvents, Viewer } from "../ledger/types";

/** The most recent events a stream may open with (?recent=); the Live view shows this many. */
export const MAX_RECENT_EVENTS = 100;

/** One shard's recentEvents() reader; called again after a failure (a fresh stub). */
export type RecentReader = () => { recentEvents(count: number, viewer: Viewer): Promise<RecentEvents> };

/** Where a stream starts on each shard so that it opens with the tenant's newest events, and how many. */
export interface RecentStart {
  positions: number[];
  /** How many events the viewer may see lie after `positions`: the stream sends them first. */
  count: number;
}

/**
 * Positions that put the newest `count` events the viewer may see, of all shards together, right
 * after a stream's `ready`. Each shard offers its newest `count`; the newest of their union by time
 * (`at`) are taken, and each shard starts just before the oldest it gave, or at its newest event
 * when it gave none. Rejects when a shard stays unreachable.
 */
export async function recentStarts(
  shards: readonly RecentReader[],
  count: number,
  viewer: Viewer,
): Promise<RecentStart> {
  const answers = await Promise.all(
    shards.map((reader) => callDurable(reader, (ledger) => ledger.recentEvents(count, viewer))),
  );
  // Newest first; within a shard the id decides (times can tie), so each shard gives a run of its newest.
  const candidates = answers.flatMap((answer, shard) =>
    answer.events.map((event, rank) => ({ shard, rank, at: event.at })),
  );
  candidates.sort((a, b) => b.at - a.at || (a.shard === b.shard ? a.rank - b.rank : a.shard - b.shard));
  const taken = answers.map(() => 0);
  for (const { shard } of candidates.slice(0, count)) taken[shard]!++;
  const positions = answers.map((answer, shard) => {
    const oldest = answer.events[taken[shard]! - 1];
    return oldest ? oldest.id - 1 : answer.last;
  });
  return { positions, count: taken.reduce((sum, n) => sum + n, 0) };
}
