import type { EventBatch, StoredEvent } from "../durable/ledger-types";

export interface EventStreamOptions {
  /** One events() reader per shard; called again after a failure (a fresh stub). */
  shards: readonly (() => { events(after: number, waitMs: number): Promise<EventBatch> })[];
  /** Per-shard positions to resume after (from Last-Event-ID), or null to start from now. */
  resume: number[] | null;
  /** A comment line this often keeps idle proxies from closing the stream. */
  heartbeatMs: number;
  /** How long one long-poll of a shard waits for its next event. */
  pollMs: number;
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

function frame(event: StoredEvent, id: string): string {
  return `id: ${id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * Server-Sent Events merged from every ledger shard of a tenant. Each shard is long-polled on its
 * own; one writer interleaves them, so every id sent covers all that was delivered before it.
 */
export function eventStream(options: EventStreamOptions): ReadableStream<Uint8Array> {
  let stopped = false;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const positions = options.resume ? [...options.resume] : options.shards.map(() => -1);

  return new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        if (!stopped) controller.enqueue(encoder.encode(text));
      };
      send(`retry: 3000\n: connected\n\n`);
      heartbeat = setInterval(() => send(`: heartbeat\n\n`), options.heartbeatMs);
      void begin(send);
    },
    cancel() {
      stopped = true;
      if (heartbeat !== undefined) clearInterval(heartbeat);
    },
  });

  /** "From now" needs every shard's position first, so no id sent leaves a shard unknown. */
  async function begin(send: (text: string) => void) {
    await Promise.all(
      options.shards.map(async (reader, shard) => {
        while (positions[shard]! < 0 && !stopped) {
          positions[shard] = await reader()
            .events(-1, 0)
            .then((batch) => batch.last)
            .catch(() => new Promise<number>((resolve) => setTimeout(() => resolve(-1), 1_000)));
        }
      }),
    );
    options.shards.forEach((reader, shard) => void follow(reader, shard, send));
  }

  async function follow(reader: EventStreamOptions["shards"][number], shard: number, send: (text: string) => void) {
    while (!stopped) {
      try {
        const batch = await reader().events(positions[shard]!, options.pollMs);
        for (const event of batch.events) {
          if (stopped) return;
          positions[shard] = event.id;
          send(frame(event, positions.join(".")));
        }
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 1_000)); // a reset shard: poll again with a fresh stub
      }
    }
  }
}
