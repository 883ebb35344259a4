import type { CallEvent } from "./events";
import type { CallJournal } from "./journal";
import type { CallRecord } from "./result";
import type { ToolSpan } from "./tool";

/**
 * Traces calls (ExecuteOptions.tracer): the pipeline hands it its lifecycle events and lets it wrap the
 * fetch of each attempt and the journal. Nothing of it runs when no tracer is given.
 * src/telemetry/call-tracer.ts builds OpenTelemetry spans with it.
 */
export interface CallTracer {
  /** Every lifecycle event of the calls it traces (as the onEvent hook gets them). */
  onEvent(event: CallEvent): void;
  /** The fetch one attempt of a call uses (ctx.fetch): its requests become spans and carry the trace context. */
  fetch(callId: string, attempt: number, fetch: typeof globalThis.fetch): typeof globalThis.fetch;
  /** The journal the calls use, its writes timed. */
  journal(journal: CallJournal): CallJournal;
  /**
   * The W3C `traceparent` of a call's span: kept in its record (CallRecord.trace) and given to the run
   * that continues it elsewhere (a detached, approved or resumed run), so that run joins the trace.
   */
  traceparentOf?(callId: string, tool: string): string | undefined;
  /** The call goes on elsewhere (a runner took it): its span ends here, as its record says. */
  handedOff?(record: CallRecord): void;
  /** A client span a call's attempt opens (ToolContext.span); undefined when there is no room for it. */
  span?(
    callId: string,
    name: string,
    attributes: Readonly<Record<string, string | number | boolean>>,
  ): ToolSpan | undefined;
}
