import type { ServerEvent } from "../../src/contract";
import { subscribe } from "./live-source";
import type { Session } from "./session";

/**
 * Calls `changed` whenever the event stream says something about one call (progress, its end), until
 * stopped or the call has ended. Returns the stop function.
 */
export function followCall(session: Session, callId: string, changed: () => void): () => void {
  const stop = subscribe(
    session.client,
    (event: ServerEvent) => {
      if (event.data.callId !== callId) return;
      changed();
      if (event.type === "call.finished") stop();
    },
    () => undefined,
  );
  return stop;
}
