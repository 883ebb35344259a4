import type { PendingApproval } from "../../src/client";
import { h, jsonBlock, notice, replace, time, uid } from "../app/dom";
import { recordView } from "../app/record-view";
import type { Session } from "../app/session";
import type { View } from "../app/view";

const REFRESH_MS = 3_000;

/** After a decision: a denial is final; an approved call runs after the answer, so wait for its record. */
async function decide(session: Session, approval: PendingApproval, decision: "approve" | "deny", reason: string, out: HTMLElement): Promise<void> {
  replace(out, notice(decision === "approve" ? "Approving…" : "Denying…"));
  try {
    const answer = await session.client.decide(approval.callId, decision, reason || undefined);
    if (answer.decision === "deny") {
      replace(out, notice(`Denied ${approval.tool}.`), recordView(answer.call.record, answer.call));
      return;
    }
    replace(out, notice(`Approved ${approval.tool}; running…`));
    const entry = await session.client.record(approval.callId, { wait: 30 });
    replace(out, notice(`Approved ${approval.tool}: ${entry.record.status}.`), recordView(entry.record, entry));
  } catch (error) {
    replace(out, notice(`The decision failed: ${(error as Error).message}`, "error"));
  }
}

function card(session: Session, approval: PendingApproval, decided: HTMLElement, onDone: () => void): HTMLElement {
  const reasonId = uid("reason");
  const reason = h("input", { id: reasonId, type: "text", maxlength: 500, autocomplete: "off" });
  const act = (decision: "approve" | "deny") => async () => {
    const out = h("li", { class: "card" });
    decided.prepend(out);
    item.remove();
    await decide(session, approval, decision, reason.value.trim(), out);
    onDone();
  };
  const item = h(
    "li",
    { class: "card approval", "data-call-id": approval.callId, "data-tool": approval.tool },
    h("h2", {}, approval.tool),
    h("p", { class: "mono" }, approval.callId),
    h("p", { class: "muted" }, `Requested ${time(approval.requestedAt)}${approval.expiresAt ? `, expires ${new Date(approval.expiresAt).toLocaleString()}` : ""}`),
    h("h3", {}, "Arguments (masked)"),
    jsonBlock(approval.args, `Arguments of ${approval.callId}`),
    h("div", { class: "field" }, h("label", { for: reasonId }, "Reason ", h("span", { class: "muted" }, "(optional, recorded)")), reason),
    h(
      "div",
      { class: "row" },
      h("button", { type: "button", "aria-label": `Approve ${approval.tool} ${approval.callId}`, onclick: act("approve") }, "Approve"),
      h("button", { type: "button", class: "danger", "aria-label": `Deny ${approval.tool} ${approval.callId}`, onclick: act("deny") }, "Deny"),
    ),
  );
  return item;
}

export const approvalsView: View = {
  id: "approvals",
  label: "Approvals",
  admin: true,
  render(root, session) {
    const list = h("ul", { class: "cards", "aria-label": "Pending approvals" });
    const decided = h("ul", { class: "cards", "aria-label": "Decided here" });
    const state = h("div", { "aria-live": "polite" });
    const shown = new Set<string>();
    const load = async () => {
      try {
        const page = await session.client.approvals({ limit: 100 });
        const pending = new Set(page.approvals.map((a) => a.callId));
        // Keep cards being edited; add new ones; drop the ones decided elsewhere or expired.
        for (const el of [...list.children] as HTMLElement[]) if (!pending.has(el.dataset.callId ?? "")) (el.remove(), shown.delete(el.dataset.callId ?? ""));
        for (const approval of page.approvals) {
          if (shown.has(approval.callId)) continue;
          shown.add(approval.callId);
          list.append(card(session, approval, decided, () => void load()));
        }
        replace(state, list.childElementCount === 0 ? notice("No calls are waiting for approval.") : null);
      } catch (error) {
        replace(state, notice(`Could not load approvals: ${(error as Error).message}`, "error"));
      }
    };
    replace(root, h("h1", { tabindex: -1 }, "Approvals"), h("p", {}, "Calls waiting for an admin. Approving runs the call; denying records the reason."), state, list, h("h2", {}, "Decided here"), decided);
    const ready = load();
    const timer = setInterval(load, REFRESH_MS);
    return { ready, cleanup: () => clearInterval(timer) };
  },
};
