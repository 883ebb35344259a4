import type { CallRecord } from "../../src/result";
import { h, statusBadge } from "./dom";

/** A program's call as the code tool's output lists it (worker/code-mode/lazy/host.ts ChildCall). */
interface ChildCall {
  callId: string;
  tool: string;
  status: string;
}

const historyLink = (callId: string, text: string) => h("a", { href: `#/history/${encodeURIComponent(callId)}` }, text);

/** The calls a code run's output lists, when it has them in the expected shape. */
function callsOf(record: CallRecord): ChildCall[] {
  const structured = record.output?.structured as { calls?: unknown } | undefined;
  const calls = Array.isArray(structured?.calls) ? structured.calls : [];
  return calls.filter(
    (c): c is ChildCall =>
      typeof c === "object" && c !== null && typeof c.callId === "string" && typeof c.tool === "string",
  );
}

/**
 * A code run's program (its lines numbered, as text: never run, never parsed as HTML), its log and the
 * calls it made in order, each linking to its own record. Null for any other call.
 */
export function codeRun(record: CallRecord): HTMLElement | null {
  const code = (record.args as { code?: unknown } | undefined)?.code;
  if (record.source !== "code-mode" || typeof code !== "string") return null;
  const logs = (record.output?.structured as { logs?: unknown } | undefined)?.logs;
  const calls = callsOf(record);
  return h(
    "section",
    { class: "code-run", "aria-label": "Code run" },
    h("h3", {}, "Program"),
    h(
      "ol",
      { class: "program mono", "aria-label": "Program" },
      code.split("\n").map((line) => h("li", {}, h("code", {}, line))),
    ),
    Array.isArray(logs) && logs.length > 0
      ? [h("h3", {}, "Log"), h("pre", { "aria-label": "Log" }, logs.map(String).join("\n"))]
      : null,
    h("h3", {}, `Calls (${calls.length})`),
    calls.length > 0
      ? h(
          "ol",
          { class: "run-calls", "aria-label": "Calls the program made" },
          calls.map((call) =>
            h("li", {}, historyLink(call.callId, `${call.tool} ${call.callId}`), " ", statusBadge(call.status)),
          ),
        )
      : h("p", {}, "The program made no call."),
  );
}

/** A link to the code run that made this call (record.parent), for the call's facts. */
export function parentLink(record: CallRecord): HTMLElement | undefined {
  return record.parent === undefined ? undefined : historyLink(record.parent, record.parent);
}
