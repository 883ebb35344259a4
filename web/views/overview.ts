import type { GateSnapshot, MetricsRange, MetricsSummary } from "../../src/contract";
import { barChart, lineChart } from "../app/charts";
import { h, notice, replace, time } from "../app/dom";
import { subscribe } from "../app/live-source";
import type { View } from "../app/view";

const RANGES: { range: MetricsRange; label: string; unit: string }[] = [
  { range: "hour", label: "Last hour", unit: "minute" },
  { range: "day", label: "Last day", unit: "15 minutes" },
  { range: "week", label: "Last week", unit: "hour" },
];
/** A finished call's event reloads the metrics at most this often. */
const LIVE_MS = 2_000;
/** Without events, the range still moves on. */
const REFRESH_MS = 30_000;

const ms = (value: number | null) => (value === null ? "–" : `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`);
const percent = (part: number, whole: number) => (whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)}%`);

function cell(text: string | number, numeric = true): HTMLTableCellElement {
  return h("td", numeric ? { class: "num" } : {}, String(text));
}

function table(caption: string, head: string[], rows: HTMLTableRowElement[]): HTMLElement {
  return h(
    "div",
    { class: "table-wrap", tabindex: 0, role: "region", "aria-label": caption },
    h(
      "table",
      {},
      h("caption", {}, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          head.map((name) => h("th", { scope: "col" }, name)),
        ),
      ),
      h("tbody", {}, rows),
    ),
  );
}

/** The gates' queues now, by the name metrics give them (tool:<name> or group:<name>, keys together). */
function queuesByGate(snapshots: GateSnapshot[]): Map<string, { queued: number; holders: number }> {
  const queues = new Map<string, { queued: number; holders: number }>();
  for (const gate of snapshots) {
    const match = /(?:^|:)((?:tool|group):[^:]+)/.exec(gate.gate);
    const name = match?.[1] ?? gate.gate;
    const sum = queues.get(name) ?? { queued: 0, holders: 0 };
    sum.queued += gate.queueDepth;
    sum.holders += gate.holders.length;
    queues.set(name, sum);
  }
  return queues;
}

function render(summary: MetricsSummary, gates: GateSnapshot[]): HTMLElement[] {
  const unit = RANGES.find((r) => r.range === summary.range)!.unit;
  const calls = summary.steps.reduce((sum, step) => sum + step.calls, 0);
  const errors = summary.steps.reduce((sum, step) => sum + step.errors, 0);
  const facts = h(
    "dl",
    { class: "facts", "aria-label": "Totals" },
    h("dt", {}, "Calls"),
    h("dd", { "data-field": "calls" }, String(calls)),
    h("dt", {}, "Errors"),
    h("dd", { "data-field": "errors" }, `${errors} (${percent(errors, calls)})`),
    h("dt", {}, "Approvals waiting"),
    h("dd", { "data-field": "approvals" }, String(summary.approvalsPending)),
  );
  const charts = h(
    "div",
    { class: "overview-charts" },
    h(
      "figure",
      {},
      h("figcaption", {}, `Calls per ${unit} (errors in red)`),
      barChart(
        summary.steps.map((step) => ({ at: step.at, value: step.calls, bad: step.errors })),
        {
          label: `Calls per ${unit}: ${calls} in all, ${errors} failed`,
          format: String,
          stepMs: summary.stepMs,
        },
      ),
    ),
    h(
      "figure",
      {},
      h("figcaption", {}, `Error rate per ${unit}`),
      lineChart(
        summary.steps.map((step) => ({ at: step.at, value: step.calls === 0 ? null : step.errors / step.calls })),
        {
          label: `Error rate per ${unit}: ${percent(errors, calls)} over the range`,
          format: (rate) => `${Math.round(rate * 100)}%`,
          stepMs: summary.stepMs,
          minMax: 0.05,
        },
      ),
    ),
  );
  const toolRows = summary.tools.map((tool) =>
    h(
      "tr",
      { "data-tool": tool.tool },
      h("th", { scope: "row" }, tool.tool),
      cell(tool.calls),
      cell(`${tool.errors} (${percent(tool.errors, tool.calls)})`),
      cell(ms(tool.latency.p50)),
      cell(ms(tool.latency.p95)),
      cell(ms(tool.latency.p99)),
      cell(tool.approvalsPending),
      cell(
        Object.entries(tool.errorCodes)
          .sort(([, a], [, b]) => b - a)
          .map(([code, n]) => `${code} ${n}`)
          .join(", ") || "–",
        false,
      ),
    ),
  );
  const queues = queuesByGate(gates);
  const gateRows = summary.gates.slice(0, 10).map((gate) => {
    const now = queues.get(gate.gate);
    return h(
      "tr",
      { "data-gate": gate.gate },
      h("th", { scope: "row" }, gate.gate),
      cell(gate.calls),
      cell(gate.busy),
      cell(ms(gate.wait.p50)),
      cell(ms(gate.wait.p95)),
      cell(ms(gate.wait.p99)),
      cell(now ? `${now.holders} running, ${now.queued} waiting` : "–", false),
    );
  });
  return [
    facts,
    charts,
    h("h2", {}, "Tools"),
    toolRows.length === 0
      ? notice("No call ended in this range.")
      : table(
          "Latency per tool (percentiles at most 41% above the true value)",
          ["Tool", "Calls", "Errors", "p50", "p95", "p99", "Awaiting approval", "Error codes"],
          toolRows,
        ),
    h("h2", {}, "Busiest gates"),
    gateRows.length === 0
      ? notice("No gated call ended in this range.")
      : table(
          "Gates, the busiest first: wait for a slot, and their queues now",
          ["Gate", "Calls", "Busy", "Wait p50", "Wait p95", "Wait p99", "Now"],
          gateRows,
        ),
  ];
}

/**
 * The console's first view for admins: how the tools are doing over the last hour, day or week
 * (GET /v1/metrics), updated live as calls end (the event stream) and as time moves on.
 */
export const overviewView: View = {
  id: "overview",
  label: "Overview",
  admin: true,
  render(root, session) {
    let range: MetricsRange = "hour";
    const body = h("div", { class: "overview" });
    const state = h("p", { class: "muted", role: "status" });
    const picker = h(
      "fieldset",
      { class: "range" },
      h("legend", {}, "Range"),
      RANGES.map((r) =>
        h(
          "label",
          {},
          h("input", {
            type: "radio",
            name: "overview-range",
            value: r.range,
            checked: r.range === range,
            onchange: () => {
              range = r.range;
              void load();
            },
          }),
          ` ${r.label}`,
        ),
      ),
    );
    let loading: Promise<void> | undefined;
    let again = false;
    const load = (): Promise<void> => {
      // One load at a time; a request made meanwhile runs once it ends.
      if (loading) {
        again = true;
        return loading;
      }
      loading = (async () => {
        try {
          const [summary, gates] = await Promise.all([
            session.client.metrics(range),
            session.client.gates({ limit: 100 }).then(
              (page) => page.gates,
              () => [],
            ),
          ]);
          replace(body, render(summary, gates));
          body.dataset.range = summary.range;
          state.textContent = `Updated ${time(Date.now())}.`;
        } catch (error) {
          replace(body, notice(`Could not load the metrics: ${(error as Error).message}`, "error"));
        } finally {
          loading = undefined;
          if (again) {
            again = false;
            void load();
          }
        }
      })();
      return loading;
    };
    replace(
      root,
      h("h1", { tabindex: -1 }, "Overview"),
      h("p", {}, "How the tools are doing: calls, errors and latency as calls end, per tool and per gate."),
      picker,
      state,
      body,
    );
    const ready = load();
    let pending: ReturnType<typeof setTimeout> | undefined;
    const stop = subscribe(
      session.client,
      (event) => {
        if (event.type !== "call.finished" && !event.type.startsWith("approval.")) return;
        pending ??= setTimeout(() => {
          pending = undefined;
          void load();
        }, LIVE_MS);
      },
      () => undefined,
    );
    const timer = setInterval(() => void load(), REFRESH_MS);
    return {
      ready,
      cleanup: () => {
        stop();
        clearInterval(timer);
        clearTimeout(pending);
      },
    };
  },
};
