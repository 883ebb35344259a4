import type { CallEntry, CallQuery } from "../../src/client";
import { CALL_STATUSES, TERMINAL_STATUSES, type CallStatus } from "../../src/result";
import { catalog } from "../app/catalog";
import { h, notice, replace, statusBadge, time } from "../app/dom";
import { followCall } from "../app/follow-call";
import { recordView } from "../app/record-view";

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_STATUSES);
import type { Session } from "../app/session";
import type { View } from "../app/view";


/** One call as a disclosure: the summary line, and the full entry fetched when opened. */
function item(session: Session, entry: CallEntry): HTMLElement {
  const { record } = entry;
  const body = h("div", {});
  const details = h(
    "details",
    { class: "call", "data-call-id": record.callId },
    h("summary", {}, h("span", { class: "mono" }, time(record.startedAt)), " ", statusBadge(record.status), ` ${record.tool} · ${record.durationMs} ms · `, h("span", { class: "mono" }, record.callId)),
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
      if (!TERMINAL.has(record.status)) stopFollowing = followCall(session, record.callId, () => void refresh().catch(() => undefined));
    } catch (error) {
      body.append(notice(`Could not refresh: ${(error as Error).message}`, "error"));
    }
  });
  return h("li", {}, details);
}

export const historyView: View = {
  id: "history",
  label: "History",
  render(root, session) {
    const tool = h("select", { id: "history-tool" }, h("option", { value: "" }, "all tools"));
    const status = h("select", { id: "history-status" }, h("option", { value: "" }, "any status"), CALL_STATUSES.map((s) => h("option", { value: s }, s)));
    const list = h("ol", { class: "calls", "aria-label": "Calls, newest first" });
    const state = h("div", { "aria-live": "polite" });
    const more = h("button", { type: "button", hidden: true }, "Load older calls");
    let cursor: string | null = null;
    /** The newest load: an older one's answer (other filters, or a page before them) is dropped. */
    let latest = 0;

    const load = async (append: boolean) => {
      const mine = ++latest;
      const query: CallQuery = { limit: 25, ...(tool.value ? { tool: tool.value } : {}), ...(status.value ? { status: status.value as CallStatus } : {}) };
      if (append && cursor) query.cursor = cursor;
      list.setAttribute("aria-busy", "true");
      replace(state, notice("Loading…"));
      try {
        const page = await session.client.records(query);
        if (mine !== latest) return;
        cursor = page.nextCursor;
        if (!append) list.replaceChildren();
        list.append(...page.calls.map((entry) => item(session, entry)));
        replace(state, page.calls.length === 0 && !append ? notice("No calls match.") : null);
        more.hidden = cursor === null;
      } catch (error) {
        if (mine !== latest) return;
        replace(state, notice(`Could not load the calls: ${(error as Error).message}`, "error"));
      }
      list.setAttribute("aria-busy", "false");
    };
    tool.addEventListener("change", () => load(false));
    status.addEventListener("change", () => load(false));
    more.addEventListener("click", () => load(true));
    const refresh = h("button", { type: "button", onclick: () => load(false) }, "Refresh");
    replace(
      root,
      h("h1", { tabindex: -1 }, "History"),
      h("div", { class: "row" }, h("div", { class: "field" }, h("label", { for: "history-tool" }, "Tool"), tool), h("div", { class: "field" }, h("label", { for: "history-status" }, "Status"), status), refresh),
      state,
      list,
      more,
    );
    const options = catalog(session.client).then((tools) => tool.append(...tools.map((t) => h("option", { value: t.name }, t.name))), () => undefined);
    return { ready: Promise.all([options, load(false)]) };
  },
};
