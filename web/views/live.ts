import type { ServerEvent } from "../../src/contract";
import { h, progressText, replace, statusBadge, time } from "../app/dom";
import { subscribe, type LiveState } from "../app/live-source";
import { type ShownUser, userPart } from "../app/user-label";
import type { View } from "../app/view";

const MAX_SHOWN = 200;
/** How many of the newest events the view opens with (the stream sends them right after `ready`). */
const RECENT = 50;

/** When an event happened (its `at`), else now. */
const atOf = (event: ServerEvent) => (typeof event.data.at === "number" ? event.data.at : Date.now());

/** The user an event's call is for ({ id, name }), when it names one. */
function userOf(event: ServerEvent): ShownUser | undefined {
  const user = event.data.user as { id?: unknown; name?: unknown } | undefined;
  if (typeof user?.id !== "string") return undefined;
  return typeof user.name === "string" ? { id: user.id, name: user.name } : { id: user.id };
}

/**
 * One event as a line of text: when, what, which tool and call, the outcome when there is one, and
 * who the call is for (as History shows it).
 */
function line(event: ServerEvent): HTMLElement {
  const d = event.data;
  const user = userOf(event);
  const record = d.record as { status?: string; durationMs?: number } | undefined;
  const decision = typeof d.decision === "string" ? d.decision : typeof d.state === "string" ? d.state : undefined;
  const gate = typeof d.gate === "string" ? d.gate : undefined;
  const progress = d.progress as { progress?: number; total?: number; message?: string } | undefined;
  return h(
    "li",
    {
      class: "event",
      "data-type": event.type,
      "data-tool": d.tool ?? gate ?? "",
      "data-user": user?.id ?? "",
      "data-at": atOf(event),
    },
    h("span", { class: "mono" }, time(atOf(event))),
    " ",
    h("span", { class: "event-type" }, event.type),
    d.tool ? ` ${d.tool}` : gate ? ` ${gate}` : "",
    record?.status ? [" ", statusBadge(record.status)] : "",
    record?.durationMs !== undefined ? ` ${record.durationMs} ms` : "",
    decision ? ` ${decision}` : "",
    typeof d.queueDepth === "number" ? ` queue ${d.queueDepth}` : "",
    progress ? ` ${progressText(progress)}` : "",
    d.callId ? [" ", h("span", { class: "mono muted" }, String(d.callId))] : "",
    userPart(user),
  );
}

/**
 * Puts an event in the list, newest first by time: new events go on top, and the recent ones the
 * stream opens with (shard by shard) fall into place. Keeps at most MAX_SHOWN.
 */
function show(list: HTMLElement, item: HTMLElement): void {
  const at = Number(item.dataset.at);
  let before = list.firstElementChild as HTMLElement | null;
  while (before && Number(before.dataset.at) > at) before = before.nextElementSibling as HTMLElement | null;
  list.insertBefore(item, before);
  while (list.childElementCount > MAX_SHOWN) list.lastElementChild?.remove();
}

export const liveView: View = {
  id: "live",
  label: "Live",
  render(root, session) {
    const list = h("ol", { class: "events", "aria-label": "Events, newest first" });
    const state = h("p", { role: "status", class: "muted" }, "Connecting…");
    let paused = false;
    const pause = h("button", { type: "button", "aria-pressed": "false" }, "Pause");
    pause.addEventListener("click", () => {
      paused = !paused;
      pause.setAttribute("aria-pressed", String(paused));
      pause.textContent = paused ? "Resume" : "Pause";
    });
    const clear = h("button", { type: "button", class: "quiet", onclick: () => list.replaceChildren() }, "Clear");
    // Only the events of one user's calls, as History's User filter (by the user's exact id).
    const user = h("input", { id: "live-user", type: "search", placeholder: "user id", autocomplete: "off" });
    const shown = (item: HTMLElement) => {
      const wanted = user.value.trim();
      item.hidden = wanted !== "" && item.dataset.user !== wanted;
      return item;
    };
    user.addEventListener("input", () => {
      for (const item of list.children) shown(item as HTMLElement);
    });
    const filter = h("label", { for: "live-user" }, "User ", user);
    replace(
      root,
      h("h1", { tabindex: -1 }, "Live events"),
      h("div", { class: "row" }, state, pause, clear, filter),
      list,
    );
    const labels: Record<LiveState, string> = {
      connecting: "Connecting…",
      open: "Connected: new events appear at the top.",
      reconnecting: "Reconnecting…",
    };
    // Ready once the stream is open and the recent events it opened with are on screen.
    let settle!: () => void;
    const ready = new Promise<void>((resolve) => (settle = resolve));
    let awaited = Infinity;
    let received = 0;
    const cleanup = subscribe(
      session.client,
      (event) => {
        if (++received >= awaited) settle();
        if (paused) return;
        show(list, shown(line(event)));
      },
      (s) => (state.textContent = labels[s]),
      {
        recent: RECENT,
        onReady: (recent) => {
          awaited = received + recent;
          if (recent === 0) settle();
        },
      },
    );
    return { ready, cleanup };
  },
};
