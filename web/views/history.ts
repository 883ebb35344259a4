import type { CallEntry, CallQuery } from "../../src/contract";
import { TERMINAL_STATUSES } from "../../src/result";
import { catalog, summaryOf } from "../app/catalog";
import { h, notice, replace, statusBadge } from "../app/dom";
import { downloadExport } from "../app/export-records";
import { followCall } from "../app/follow-call";
import { historyFilters } from "../app/history-filters";
import { recordView } from "../app/record-view";
import type { Session } from "../app/session";
import { userPart } from "../app/user-label";
import type { View } from "../app/view";

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_STATUSES);
const PAGE = 25;

/** "2026-11-24 12:03:07": a date that sorts and reads the same everywhere (local time). */
function when(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  const date = `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
  return `${date} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** " — Add 2 and 3" when the tool gives a call summary (its render hint), else nothing. */
function summaryLine(tool: string, args: unknown): string {
  const summary = summaryOf(tool, args);
  return summary === undefined ? "" : ` — ${summary}`;
}

/** One call as a disclosure: the summary line, and the full entry fetched when opened. */
function item(session: Session, entry: CallEntry): HTMLElement {
  const { record } = entry;
  const body = h("div", {});
  const details = h(
    "details",
    { class: "call", "data-call-id": record.callId },
    h(
      "summary",
      {},
      h("time", { class: "mono", datetime: new Date(record.startedAt).toISOString() }, when(record.startedAt)),
      " ",
      statusBadge(record.status),
      ` ${record.tool}${summaryLine(record.tool, record.args)} · ${record.durationMs} ms · `,
      h("span", { class: "mono" }, record.callId),
      h(
        "span",
        { class: "muted" },
        [entry.key ? ` · ${entry.key}` : "", entry.surface ? ` · ${entry.surface}` : ""].join(""),
      ),
      userPart(entry.user),
    ),
    body,
  );
  let stopFollowing: (() => void) | undefined;
  const show = (fresh: CallEntry) => replace(body, recordView(fresh.record, fresh, { cancel: () => void cancel() }));
  const refresh = async () => show(await session.client.record(record.callId));
  const cancel = async () => {
    try {
      await session.client.cancel(record.callId);
      await refresh();
    } catch (error) {
      body.append(notice(`Could not cancel: ${(error as Error).message}`, "error"));
    }
  };
  details.addEventListener("toggle", async () => {
    stopFollowing?.();
    stopFollowing = undefined;
    if (!details.open) return;
    show(entry);
    try {
      await refresh();
      // A call still going: its progress and its end arrive on the event stream while it is open.
      if (!TERMINAL.has(record.status))
        stopFollowing = followCall(session, record.callId, () => void refresh().catch(() => undefined));
    } catch (error) {
      body.append(notice(`Could not refresh: ${(error as Error).message}`, "error"));
    }
  });
  return h("li", {}, details);
}

export const historyView: View = {
  id: "history",
  label: "History",
  render(root, session, param) {
    const filters = historyFilters(param);
    const list = h("ol", { class: "calls", "aria-label": "Calls, newest first" });
    const state = h("div", { "aria-live": "polite" });
    const shown = h("p", { class: "muted", "aria-live": "polite" });
    const more = h("button", { type: "button", hidden: true }, "Load older calls");
    const exported = h("div", { "aria-live": "polite" });
    let cursor: string | null = null;
    /** The newest load: an older one's answer (other filters, or a page before them) is dropped. */
    let latest = 0;
    /** The filters of the list on screen: older pages and the export use these, not the controls' new values. */
    let listed: CallQuery = {};

    // The catalogue fills the tool filter and gives each row its call summary: rows wait for it.
    const options = catalog(session.client).then(
      (tools) => filters.tool.append(...tools.map((t) => h("option", { value: t.name }, t.name))),
      () => undefined,
    );
    const load = async (append: boolean) => {
      const mine = ++latest;
      if (!append) listed = filters.query();
      const query: CallQuery = { ...listed, limit: PAGE };
      if (append && cursor) query.cursor = cursor;
      list.setAttribute("aria-busy", "true");
      replace(state, notice("Loading…"));
      try {
        const [page] = await Promise.all([session.client.records(query), options]);
        if (mine !== latest) return;
        cursor = page.nextCursor;
        if (!append) list.replaceChildren();
        list.append(...page.calls.map((entry) => item(session, entry)));
        replace(state, page.calls.length === 0 && !append ? notice("No calls match.") : null);
        const count = list.childElementCount;
        shown.textContent = `${count} call${count === 1 ? "" : "s"} shown${cursor ? "; older ones match too" : ""}.`;
        more.hidden = cursor === null;
      } catch (error) {
        if (mine !== latest) return;
        replace(state, notice(`Could not load the calls: ${(error as Error).message}`, "error"));
      }
      list.setAttribute("aria-busy", "false");
    };
    filters.onChange(() => void load(false));
    more.addEventListener("click", () => load(true));
    const refresh = h("button", { type: "button", onclick: () => load(false) }, "Refresh");
    const exportButton = h(
      "button",
      {
        type: "button",
        class: "quiet",
        onclick: () => void downloadExport(session, listed, exported, session.who.tenant),
      },
      "Export NDJSON",
    );
    replace(
      root,
      h("h1", { tabindex: -1 }, "History"),
      filters.element,
      h("div", { class: "row" }, refresh, exportButton),
      exported,
      state,
      shown,
      list,
      more,
    );

    // A link to one call (#/history/<id>) lists it and opens it.
    const first = load(false).then(() => {
      const linked =
        param === undefined
          ? null
          : list.querySelector<HTMLDetailsElement>(`details[data-call-id="${CSS.escape(param)}"]`);
      if (linked) linked.open = true;
    });
    return { ready: Promise.all([options, first]) };
  },
};
