import type { EventBatch, Viewer } from "../ledger/types";
import { callDurable } from "../durable/call";

/** One shard's events() reader; called again after a failure (a fresh stub). */
export type EventReader = () => { events(after: number, waitMs: number, viewer: Viewer): Promise<EventBatch> };

export interface EventStreamOptions {
  shards: readonly EventReader[];
  /** Every shard's position to continue after (see startPositions). */
  positions: readonly number[];
  /** Whose events the stream carries (a key's name, or null for all). */
  viewer: Viewer;
  /** A comment line this often keeps idle proxies from closing the stream. */
  heartbeatMs: number;
  /** How long one long-poll of a shard waits for its next event. */
  pollMs: number;
  /**
   * Shards beyond the `known` ones that now hold events (the shard map grew), with where to start on
   * each; asked every growMs, so a stream learns a change without reconnecting.
   */
  grow?: (known: number) => Promise<GrownShard[]>;
  growMs?: number;
  /** How many of the events after `positions` were there before the stream opened (?recent=): `ready` says so. */
  recent?: number;
}

/** A shard a stream learns of while open: its number (the next after the known ones), reader and start. */
export interface GrownShard {
  shard: number;
  reader: EventReader;
  start: number;
}

const encoder = new TextEncoder();

/** An SSE id is every shard's position: "12.0.7.3". A resumed stream continues each shard after it. */
export function parseEventId(value: string | undefined | null, shards: number): number[] | null {
  if (!value) return null;
  const parts = value.split(".").map(Number);
  if (!parts.every((n) => Number.isInteger(n) && n >= 0)) return null;
  // A shard the id does not know (the shard count grew) starts from now.
  return Array.from({ length: shards }, (_, i) => parts[i] ?? -1);
}

/**
 * Where the stream starts on each shard: after the resumed position, or at the shard's newest event
 * ("from now"). Read before the response starts, so every event after the client sees `ready` is
 * delivered. Rejects when a shard stays unreachable.
 */
export function startPositions(
  shards: readonly EventReader[],
  resume: readonly number[] | null,
  viewer: Viewer,
): Promise<number[]> {
  return Promise.all(
    shards.map(async (reader, shard) => {
      const known = resume?.[shard] ?? -1;
      if (known >= 0) return known;
      return (await callDurable(reader, (ledger) => ledger.events(-1, 0, viewer))).last;
    }),
  );
}

function frame(type: string, data: unknown, id: string): string {
  return `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Server-Sent Events merged from every ledger shard of a tenant. The first frame is `ready`, whose id
 * is the starting position (and whose `recent` counts the earlier events sent first, when asked for); then each shard
 * is long-polled on its own and one writer interleaves them, so every id sent covers all that was delivered before it.
 */
export function eventStream(options: EventStreamOptions): ReadableStream<Uint8Array> {
  let stopped = false;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let growing: ReturnType<typeof setInterval> | undefined;
  const positions = [...options.positions];

  return new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        if (!stopped) controller.enqueue(encoder.encode(text));
      };
      const ready = options.recent === undefined ? { type: "ready" } : { type: "ready", recent: options.recent };
      send(`retry: 3000\n\n${frame("ready", ready, positions.join("."))}`);
      heartbeat = setInterval(() => send(`: heartbeat\n\n`), options.heartbeatMs);
      options.shards.forEach((reader, shard) => void follow(reader, shard, send));
      const { grow } = options;
      if (grow)
        growing = setInterval(
          () =>
            void grow(positions.length).then(
              (more) => added(more, send),
              () => undefined,
            ),
          options.growMs ?? 10_000,
        );
    },
    cancel() {
      stopped = true;
      if (heartbeat !== undefined) clearInterval(heartbeat);
      if (growing !== undefined) clearInterval(growing);
    },
  });

  /** New shards join at the end of the id, in order (a shard another answer added already is skipped). */
  function added(more: GrownShard[], send: (text: string) => void) {
    for (const { shard, reader, start } of more) {
      if (stopped || shard !== positions.length) continue;
      positions.push(start);
      void follow(reader, shard, send);
    }
  }

  async function follow(reader: EventReader, shard: number, send: (text: string) => void) {
    while (!stopped) {
      try {
        const batch = await reader().events(positions[shard]!, options.pollMs, options.viewer);
        for (const event of batch.events) {
          if (stopped) return;
          positions[shard] = event.id;
          send(frame(event.type, event.data, positions.join(".")));
        }
        // Past other keys' events too: the next id sent skips them.
        positions[shard] = batch.last;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 1_000)); // a reset shard: poll again with a fresh stub
      }
    }
  }
}
