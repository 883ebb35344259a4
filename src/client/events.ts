import { readSse } from "../adapters/sse";
import type { ServerEvent } from "../contract/events";
import { isApiError, type Transport } from "./http";

export interface EventStreamOptions {
  /** Resume after this event id (the `id` of the last event seen). */
  lastEventId?: string;
  /** Open with the newest events the key may see, up to this many (0 to 100; a resumed stream ignores it). */
  recent?: number;
  /** Stops the stream (the iterator then ends). */
  signal?: AbortSignal;
  /** Reconnect (resuming from the last id) when the server closes the stream or the network drops. Default true. */
  reconnect?: boolean;
  /** Delay before a reconnect, in ms. Default 1000. */
  retryMs?: number;
}

function toEvent(type: string, data: string, id: string | undefined): ServerEvent {
  let parsed: ServerEvent["data"];
  try {
    parsed = JSON.parse(data) as ServerEvent["data"];
  } catch {
    parsed = { text: data };
  }
  return {
    ...(id ? { id } : {}),
    type: type === "message" && typeof parsed.type === "string" ? parsed.type : type,
    data: parsed,
  };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * GET /v1/events read with fetch, so the key travels as a header (works in browsers and Node).
 * Each connection opens with a `ready` event: every event after it is delivered, so wait for it
 * before making calls to watch. Heartbeats (comments) are skipped. Auth and scope failures end the stream with their
 * ApiError; anything else reconnects with Last-Event-ID, so no event is lost or repeated across reconnects.
 */
export async function* streamEvents(
  transport: Transport,
  options: EventStreamOptions = {},
): AsyncGenerator<ServerEvent> {
  let lastId = options.lastEventId;
  const { signal } = options;
  while (!signal?.aborted) {
    try {
      const response = await transport.raw("/v1/events", {
        // Only a new stream opens with recent events; a resumed one continues after the last id.
        ...(!lastId && options.recent ? { query: { recent: String(options.recent) } } : {}),
        headers: { Accept: "text/event-stream", ...(lastId ? { "Last-Event-ID": lastId } : {}) },
        ...(signal ? { signal } : {}),
      });
      if (!response.body) throw new Error("The event stream has no body.");
      for await (const event of readSse(response.body)) {
        if (event.id) lastId = event.id;
        yield toEvent(event.event, event.data, event.id);
      }
    } catch (error) {
      if (signal?.aborted) return;
      if (isApiError(error) && error.status >= 400 && error.status < 500 && error.status !== 429) throw error;
      if (options.reconnect === false) throw error;
    }
    if (options.reconnect === false) return;
    await sleep(options.retryMs ?? 1000, signal);
  }
}

export interface EventToken {
  token: string;
  expiresAt: number;
}

export type EventSourceOptions = Pick<EventStreamOptions, "lastEventId" | "recent" | "signal">;

/**
 * An EventSource on GET /v1/events for browsers: EventSource cannot send headers, so it authenticates
 * with a short-lived token from POST /v1/events/token, never with the key. EventSource reconnects
 * with the same URL, so once the token has expired a reconnect fails (the source closes): open a new
 * one with the last event id seen. Events arrive as named events (addEventListener("call.finished")).
 */
export async function openEventSource(transport: Transport, options: EventSourceOptions = {}): Promise<EventSource> {
  const { token } = await transport.json<EventToken>("/v1/events/token", {
    method: "POST",
    body: {},
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const query = {
    token,
    ...(options.lastEventId
      ? { lastEventId: options.lastEventId }
      : options.recent
        ? { recent: String(options.recent) }
        : {}),
  };
  return new EventSource(transport.url("/v1/events", query));
}
