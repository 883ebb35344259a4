import type { GateSnapshot } from "../../src/contract";
import { h, notice, replace, time } from "../app/dom";
import type { View } from "../app/view";

const REFRESH_MS = 1_000;

function gateCard(gate: GateSnapshot): HTMLElement {
  return h(
    "li",
    { class: "card gate", "data-gate": gate.gate },
    h("h2", {}, gate.gate),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Limit"),
      h("dd", { "data-field": "limit" }, String(gate.limit)),
      h("dt", {}, "Holders"),
      h("dd", { "data-field": "holders" }, String(gate.holders.length)),
      h("dt", {}, "Queue depth"),
      h("dd", { "data-field": "queue" }, String(gate.queueDepth)),
      h("dt", {}, "Queue limit"),
      h("dd", {}, String(gate.maxQueue)),
    ),
    gate.holders.length > 0
      ? [
          h("h3", {}, "Running"),
          h(
            "ul",
            { "aria-label": `Holders of ${gate.gate}` },
            gate.holders.map((x) => h("li", { class: "mono" }, `${x.tool} ${x.callId} since ${time(x.since)}`)),
          ),
        ]
      : null,
    gate.queued.length > 0
      ? [
          h("h3", {}, "Waiting, first come first served"),
          h(
            "ol",
            { "aria-label": `Queue of ${gate.gate}` },
            gate.queued.map((x) => h("li", { class: "mono" }, `${x.tool} ${x.callId} since ${time(x.since)}`)),
          ),
        ]
      : null,
  );
}

export const gatesView: View = {
  id: "gates",
  label: "Gates",
  admin: true,
  render(root, session) {
    const list = h("ul", { class: "cards", "aria-label": "Gates" });
    const state = h("p", { class: "muted" });
    let busy = false;
    const load = async () => {
      if (busy) return;
      busy = true;
      try {
        const gates: GateSnapshot[] = [];
        let after: string | undefined;
        do {
          const page = await session.client.gates(after ? { after } : {});
          gates.push(...page.gates);
          after = page.next;
        } while (after);
        replace(list, gates.map(gateCard));
        state.textContent =
          gates.length === 0
            ? "No gate has seen a call yet (gates appear with their first call)."
            : `Updated ${time(Date.now())}, every second.`;
      } catch (error) {
        replace(list, notice(`Could not load the gates: ${(error as Error).message}`, "error"));
      } finally {
        busy = false;
      }
    };
    replace(
      root,
      h("h1", { tabindex: -1 }, "Gates"),
      h("p", {}, "Concurrency gates: how many calls hold a slot and how many wait."),
      state,
      list,
    );
    const ready = load();
    const timer = setInterval(load, REFRESH_MS);
    return { ready, cleanup: () => clearInterval(timer) };
  },
};
