import type { ToolgateClient } from "../../src/client";
import type { ServerEvent, ServerEventType } from "../../src/contract";

export const EVENT_TYPES: ServerEventType[] = [
  "call.started",
  "call.progress",
  "call.input_required",
  "call.finished",
  "approval.requested",
  "approval.decided",
  "gate.changed",
];

export type LiveState = "connecting" | "open" | "reconnecting";

export interface SubscribeOptions {
  /** Open with up to this many of the newest events (the first connection only: a reconnect resumes). */
  recent?: number;
  /** Each time the stream is open (its `ready` came): how many earlier events follow before new ones. */
  onReady?: (recent: number) => void;
}

/**
 * The event stream through EventSource and a short-lived token. It is open once its `ready` event came
 * (the server knows where every shard starts). When the source closes (its token expired, the Worker
 * restarted), a new token and source resume after the last id seen (`ready`'s at least), so nothing
 * is missed or repeated. Returns a stop function.
 */
export function subscribe(
  client: ToolgateClient,
  onEvent: (event: ServerEvent) => void,
  onState: (state: LiveState) => void,
  options: SubscribeOptions = {},
): () => void {
  let stopped = false;
  let source: EventSource | undefined;
  let lastEventId: string | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const open = async () => {
    onState(lastEventId ? "reconnecting" : "connecting");
    try {
      const next = await client.eventSource(
        lastEventId ? { lastEventId } : options.recent ? { recent: options.recent } : {},
      );
      if (stopped) return next.close();
      source = next;
    } catch {
      if (!stopped) retry = setTimeout(open, 2_000);
      return;
    }
    source.addEventListener("ready", (message) => {
      const event = message as MessageEvent<string>;
      if (event.lastEventId) lastEventId = event.lastEventId;
      onState("open");
      options.onReady?.(recentOf(event.data));
    });
    source.onerror = () => {
      if (stopped) return;
      if (source?.readyState === EventSource.CLOSED) {
        source.close();
        retry = setTimeout(open, 1_000);
      } else onState("reconnecting");
    };
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (message) => {
        const event = message as MessageEvent<string>;
        if (event.lastEventId) lastEventId = event.lastEventId;
        let data: ServerEvent["data"];
        try {
          data = JSON.parse(event.data) as ServerEvent["data"];
        } catch {
          return;
        }
        onEvent({ ...(event.lastEventId ? { id: event.lastEventId } : {}), type, data });
      });
    }
  };
  void open();
  return () => {
    stopped = true;
    if (retry !== undefined) clearTimeout(retry);
    source?.close();
  };
}

/** How many earlier events the `ready` event announces (0 when it names none or does not parse). */
function recentOf(data: string): number {
  try {
    const recent = (JSON.parse(data) as { recent?: unknown }).recent;
    return typeof recent === "number" && Number.isInteger(recent) && recent > 0 ? recent : 0;
  } catch {
    return 0;
  }
}
