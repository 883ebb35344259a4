import type { ServerEvent } from "../../src/client";
import { h, progressText, replace, statusBadge, time } from "../app/dom";
import { subscribe, type LiveState } from "../app/live-source";
import type { View } from "../app/view";

const MAX_SHOWN = 200;

/** One event as a line of text: when, what, which tool and call, and the outcome when there is one. */
function line(event: ServerEvent): HTMLElement {
  const d = event.data;
  const record = d.record as { status?: string; durationMs?: number } | undefined;
  const decision = typeof d.decision === "string" ? d.decision : typeof d.state === "string" ? d.state : undefined;
  const gate = typeof d.gate === "string" ? d.gate : undefined;
  const progress = d.progress as { progress?: number; total?: number; message?: string } | undefined;
  return h(
    "li",
    { class: "event", "data-type": event.type, "data-tool": d.tool ?? gate ?? "" },
    h("span", { class: "mono" }, time(typeof d.at === "number" ? d.at : Date.now())),
    " ",
    h("span", { class: "event-type" }, event.type),
    d.tool ? ` ${d.tool}` : gate ? ` ${gate}` : "",
    record?.status ? [" ", statusBadge(record.status)] : "",
    record?.durationMs !== undefined ? ` ${record.durationMs} ms` : "",
    decision ? ` ${decision}` : "",
    typeof d.queueDepth === "number" ? ` queue ${d.queueDepth}` : "",
    progress ? ` ${progressText(progress)}` : "",
    d.callId ? [" ", h("span", { class: "mono muted" }, String(d.callId))] : "",
  );
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
    replace(root, h("h1", { tabindex: -1 }, "Live events"), h("div", { class: "row" }, state, pause, clear), list);
    const labels: Record<LiveState, string> = { connecting: "Connecting…", open: "Connected: new events appear at the top.", reconnecting: "Reconnecting…" };
    const cleanup = subscribe(
      session.client,
      (event) => {
        if (paused) return;
        list.prepend(line(event));
        while (list.childElementCount > MAX_SHOWN) list.lastElementChild?.remove();
      },
      (s) => (state.textContent = labels[s]),
    );
    // Ready at once: the stream's state has its own status line (Connecting…, Connected…).
    return { cleanup };
  },
};
