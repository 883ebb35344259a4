import type { CallEntry } from "../../src/contract";
import type { CallRecord } from "../../src/result";
import { renderOf, summaryOf } from "./catalog";
import { codeRun, parentLink } from "./code-run";
import { connectLink } from "./connect-link";
import { h, jsonBlock, notice, progressText, statusBadge } from "./dom";
import { jsonTree } from "./json-tree";
import { resultTable, tableRows } from "./result-table";
import { richContent } from "./rich-content";
import { waterfall } from "./waterfall";

/** What a view can do with a call shown in it (a running call can be cancelled). */
export interface RecordActions {
  cancel?: () => void;
}

/**
 * Statuses whose `error` says where the call stands, not what went wrong: under way (running, pending,
 * awaiting_input) or asking its caller (input_required). Shown as a status line, not an alert.
 */
const STANDING: ReadonlySet<string> = new Set(["running", "pending", "awaiting_input", "input_required"]);

/** The record's error: an alert with its code, or the plain words of a call that is not failing. */
function errorView(record: CallRecord): HTMLElement | null {
  if (!record.error) return null;
  if (STANDING.has(record.status)) return notice(record.error.message);
  return h("p", { class: "notice error", role: "alert" }, `${record.error.code}: ${record.error.message}`);
}

function row(term: string, value: Node | string | undefined): HTMLElement[] {
  return value === undefined || value === "" ? [] : [h("dt", {}, term), h("dd", {}, value)];
}

/** The structured output as the tool asks: a table of its rows, or a collapsible tree. */
function structuredView(structured: unknown, layout: string | undefined): HTMLElement {
  const table = layout === "table" ? tableRows(structured) : undefined;
  return table ? resultTable(table.name, table.rows) : jsonTree(structured, "Structured output");
}

/**
 * One call: outcome, output (text, markdown, images, audio, links — built as DOM, never parsed as
 * HTML), structured output (a tree, or a table when the tool asks), error, validation issues, timings,
 * masked arguments, and the full record as JSON.
 */
export function recordView(
  record: CallRecord,
  entry?: Omit<CallEntry, "record">,
  actions: RecordActions = {},
): HTMLElement {
  const open = record.status === "running" || record.status === "pending" || record.status === "awaiting_input";
  const issues = record.validation.issues ?? record.error?.issues ?? [];
  const render = renderOf(record.tool);
  const content = record.output?.content ?? [];
  return h(
    "section",
    { class: "record", "aria-label": `Call ${record.callId}`, "data-status": record.status },
    h("dl", { class: "facts" }, [
      ...row("Status", statusBadge(record.status)),
      ...row("Tool", record.tool),
      ...row("Summary", summaryOf(record.tool, record.args)),
      ...row("Call id", h("span", { class: "mono" }, record.callId)),
      ...row("Made by the run", parentLink(record)),
      ...row("Started", new Date(record.startedAt).toLocaleString()),
      ...row("Duration", `${record.durationMs} ms`),
      ...row("Attempts", String(record.attempts)),
      ...row("Permission", record.permission),
      ...row("Replay", record.replay ? "yes (stored outcome of an earlier call with this id)" : undefined),
      ...row(
        "Approval",
        entry?.approval
          ? `${entry.approval.state}${entry.approval.reason ? `: ${entry.approval.reason}` : ""}`
          : undefined,
      ),
      ...row("Source", record.source),
      ...row("Trace", record.trace ? h("span", { class: "mono" }, record.trace) : undefined),
      ...row("Validation", record.validation.ok ? "passed" : "failed"),
      ...row("Progress", record.progress ? progressView(record.progress) : undefined),
      ...row(
        "Open questions",
        record.status === "awaiting_input" ? questionsView(record.error?.inputRequests ?? {}) : undefined,
      ),
    ]),
    waterfall(record, entry),
    codeRun(record),
    open && actions.cancel
      ? h("button", { type: "button", class: "quiet", onclick: actions.cancel }, "Cancel this call")
      : null,
    errorView(record),
    connectLink(record),
    issues.length > 0
      ? h(
          "ul",
          { class: "issues", "aria-label": "Validation issues" },
          issues.map((i) => h("li", {}, `${i.path || "(root)"}: ${i.message}`)),
        )
      : null,
    content.length > 0 ? [h("h3", {}, "Output"), richContent(content, render?.result)] : null,
    record.output?.structured !== undefined
      ? [h("h3", {}, "Structured output"), structuredView(record.output.structured, render?.result)]
      : null,
    record.output?.truncated || entry?.truncated
      ? h("p", { class: "notice" }, "The output was truncated; the full result pages through GET /v1/calls/:id/result.")
      : null,
    h("h3", {}, "Arguments (masked)"),
    jsonBlock(record.args ?? null, "Arguments"),
    h("details", {}, h("summary", {}, "Full record"), jsonBlock(entry ? { ...entry, record } : record, "Full record")),
  );
}

/** What a call waiting for its caller asked (key, method and message), answered by its MCP client's tasks/update. */
function questionsView(requests: NonNullable<NonNullable<CallRecord["error"]>["inputRequests"]>): HTMLElement {
  const said = (params: Record<string, unknown>) => (typeof params.message === "string" ? `: ${params.message}` : "");
  return h(
    "ul",
    { class: "questions" },
    Object.entries(requests).map(([key, request]) =>
      h("li", {}, h("span", { class: "mono" }, key), ` (${request.method})${said(request.params)}`),
    ),
  );
}

/** A progress bar (when the total is known) with its words, for a running call. */
function progressView(progress: NonNullable<CallRecord["progress"]>): HTMLElement {
  const label = progressText(progress);
  const bar =
    progress.total === undefined
      ? null
      : h("progress", { value: String(progress.progress), max: String(progress.total), "aria-label": "Progress" });
  return h("span", { class: "progress" }, bar, " ", label);
}
