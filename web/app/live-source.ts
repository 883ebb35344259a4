import type { ServerEvent, ServerEventType, ToolgateClient } from "../../src/client";

export const EVENT_TYPES: ServerEventType[] = ["call.started", "call.progress", "call.input_required", "call.finished", "approval.requested", "approval.decided", "gate.changed"];

export type LiveState = "connecting" | "open" | "reconnecting";

/**
 * The event stream through EventSource and a short-lived token. When the source closes (its token
 * expired, the Worker restarted), a new token and source resume after the last id seen, so nothing
 * is missed or repeated. Returns a stop function.
 */
export function subscribe(client: ToolgateClient, onEvent: (event: ServerEvent) => void, onState: (state: LiveState) => void): () => void {
  let stopped = false;
  let source: EventSource | undefined;
  let lastEventId: string | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const open = async () => {
    onState(lastEventId ? "reconnecting" : "connecting");
    try {
      const next = await client.eventSource(lastEventId ? { lastEventId } : {});
      if (stopped) return next.close();
      source = next;
    } catch {
      if (!stopped) retry = setTimeout(open, 2_000);
      return;
    }
    source.onopen = () => onState("open");
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
