import { CALL_SURFACES, type CallQuery } from "../../src/contract";
import { CALL_STATUSES, type CallStatus } from "../../src/result";
import { h } from "./dom";

/** The History filters as controls, and the query they make. */
export interface HistoryFilters {
  /** The controls, laid out in a row. */
  element: HTMLElement;
  /** The tool select (filled once the catalogue arrives). */
  tool: HTMLSelectElement;
  query(): CallQuery;
  /** Calls `load` whenever a filter changes (text fields: on change, i.e. Enter or leaving the field). */
  onChange(load: () => void): void;
}

function field(id: string, label: string, control: HTMLElement): HTMLElement {
  return h("div", { class: "field" }, h("label", { for: id }, label), control);
}

/** A datetime-local value as epoch ms; undefined when empty or not a date. */
function epochOf(value: string): number | undefined {
  const ms = value ? new Date(value).getTime() : NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/** The filters, the Call id one filled with `callId` when a link names a call (#/history/<id>). */
export function historyFilters(callIdValue = ""): HistoryFilters {
  const callId = h("input", {
    id: "history-call-id",
    type: "search",
    maxlength: 256,
    autocomplete: "off",
    placeholder: "an id or its start",
    class: "mono",
    value: callIdValue,
  });
  const tool = h("select", { id: "history-tool" }, h("option", { value: "" }, "all tools"));
  const status = h(
    "select",
    { id: "history-status" },
    h("option", { value: "" }, "any status"),
    CALL_STATUSES.map((s) => h("option", { value: s }, s)),
  );
  const key = h("input", {
    id: "history-key",
    type: "search",
    maxlength: 256,
    autocomplete: "off",
    placeholder: "key name",
  });
  const user = h("input", {
    id: "history-user",
    type: "search",
    maxlength: 256,
    autocomplete: "off",
    placeholder: "user id",
  });
  const surface = h(
    "select",
    { id: "history-surface" },
    h("option", { value: "" }, "any surface"),
    CALL_SURFACES.map((s) => h("option", { value: s }, s)),
  );
  const since = h("input", { id: "history-since", type: "datetime-local", step: 1 });
  const until = h("input", { id: "history-until", type: "datetime-local", step: 1 });
  const controls = [callId, tool, status, key, user, surface, since, until];
  const element = h(
    "div",
    { class: "row filters" },
    field("history-call-id", "Call id", callId),
    field("history-tool", "Tool", tool),
    field("history-status", "Status", status),
    field("history-key", "Key", key),
    field("history-user", "User", user),
    field("history-surface", "Surface", surface),
    field("history-since", "From", since),
    field("history-until", "To", until),
  );
  return {
    element,
    tool,
    query() {
      const query: CallQuery = {};
      if (callId.value.trim()) query.callId = callId.value.trim();
      if (tool.value) query.tool = tool.value;
      if (status.value) query.status = status.value as CallStatus;
      if (key.value.trim()) query.key = key.value.trim();
      if (user.value.trim()) query.user = user.value.trim();
      if (surface.value) query.surface = surface.value as CallQuery["surface"] & string;
      const from = epochOf(since.value);
      const to = epochOf(until.value);
      if (from !== undefined) query.since = from;
      // "To" names a whole second: every call started within it is in.
      if (to !== undefined) query.until = to + 999;
      return query;
    },
    onChange(load) {
      for (const control of controls) control.addEventListener("change", load);
    },
  };
}
