import type { PendingApproval } from "../../src/contract";
import { catalog, summaryOf } from "../app/catalog";
import { h, jsonBlock, notice, replace, time, uid } from "../app/dom";
import { recordView } from "../app/record-view";
import type { Session } from "../app/session";
import type { View } from "../app/view";

const REFRESH_MS = 3_000;
const TICK_MS = 1_000;

/** "expires in 23 h 59 min", "expires in 42 s", "expired": for the card's countdown. */
export function expiresIn(expiresAt: number | null, now = Date.now()): string {
  if (expiresAt === null) return "never expires";
  const left = Math.round((expiresAt - now) / 1000);
  if (left <= 0) return "expired";
  if (left < 60) return `expires in ${left} s`;
  const minutes = Math.floor(left / 60);
  if (minutes < 60) return `expires in ${minutes} min ${left % 60} s`;
  return `expires in ${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** Who asked and through what: the key's name (or OAuth client and grant) and the surface. */
function askedBy(approval: PendingApproval): string {
  const who =
    approval.key === null
      ? "an unknown key"
      : approval.key.startsWith("oauth:")
        ? `OAuth client ${approval.key.slice(6)}`
        : `key ${approval.key}`;
  const surface = approval.surface === "binding" ? "a service binding" : approval.surface === "mcp" ? "MCP" : "HTTP";
  const user = approval.user ? ` for ${approval.user.name ?? approval.user.id}` : "";
  return `Asked by ${who}${user}${approval.surface ? ` through ${surface}` : ""}`;
}

/** After a decision: a denial is final; an approved call runs after the answer, so wait for its record. */
async function decide(
  session: Session,
  approval: PendingApproval,
  decision: "approve" | "deny",
  reason: string,
  out: HTMLElement,
): Promise<void> {
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
  const summary = summaryOf(approval.tool, approval.args);
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
    summary === undefined ? null : h("p", { class: "summary" }, summary),
    h(
      "ul",
      { class: "badges", "aria-label": "Context" },
      h("li", { class: `badge risk-${approval.risk}` }, `risk ${approval.risk}`),
      approval.surface ? h("li", { class: "badge" }, approval.surface) : null,
      h("li", { class: "badge" }, approval.key ?? "unknown key"),
      approval.user ? h("li", { class: "badge user" }, `user ${approval.user.id}`) : null,
    ),
    h("p", { class: "mono" }, approval.callId),
    h("p", {}, askedBy(approval)),
    h(
      "p",
      { class: "muted" },
      `Requested ${time(approval.requestedAt)}, `,
      h(
        "span",
        {
          "data-expires": approval.expiresAt ?? "",
          title: approval.expiresAt ? new Date(approval.expiresAt).toLocaleString() : "",
        },
        expiresIn(approval.expiresAt),
      ),
    ),
    h("h3", {}, "Why it waits"),
    h(
      "ul",
      { class: "reasons", "aria-label": `Rules requiring approval of ${approval.callId}` },
      approval.reasons.map((r) => h("li", {}, h("code", {}, r.rule), ` ${r.detail}`)),
    ),
    h("h3", {}, "Arguments (masked)"),
    jsonBlock(approval.args, `Arguments of ${approval.callId}`),
    h(
      "div",
      { class: "field" },
      h("label", { for: reasonId }, "Reason ", h("span", { class: "muted" }, "(optional, recorded)")),
      reason,
    ),
    // Calls an admin must decide show to their caller too, without the buttons.
    approval.decidable === false
      ? h("p", { class: "muted" }, "Waiting for an admin's decision.")
      : h(
          "div",
          { class: "row" },
          h(
            "button",
            { type: "button", "aria-label": `Approve ${approval.tool} ${approval.callId}`, onclick: act("approve") },
            "Approve",
          ),
          h(
            "button",
            {
              type: "button",
              class: "danger",
              "aria-label": `Deny ${approval.tool} ${approval.callId}`,
              onclick: act("deny"),
            },
            "Deny",
          ),
        ),
  );
  return item;
}

export const approvalsView: View = {
  id: "approvals",
  label: "Approvals",
  render(root, session) {
    const list = h("ul", { class: "cards", "aria-label": "Pending approvals" });
    const decided = h("ul", { class: "cards", "aria-label": "Decided here" });
    const state = h("div", { "aria-live": "polite" });
    const shown = new Set<string>();
    // The catalogue gives the cards their call summaries: they wait for it (or its failure).
    const tools = catalog(session.client).catch(() => undefined);
    const load = async () => {
      try {
        const [page] = await Promise.all([session.client.approvals({ limit: 100 }), tools]);
        const pending = new Set(page.approvals.map((a) => a.callId));
        // Keep cards being edited; add new ones; drop the ones decided elsewhere or expired.
        for (const el of [...list.children] as HTMLElement[])
          if (!pending.has(el.dataset.callId ?? "")) el.remove(), shown.delete(el.dataset.callId ?? "");
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
    replace(
      root,
      h("h1", { tabindex: -1 }, "Approvals"),
      h(
        "p",
        {},
        "Calls waiting for a decision: an admin's, or yours for tools that ask their user. " +
          "Approving runs the call; denying records the reason.",
      ),
      state,
      list,
      h("h2", {}, "Decided here"),
      decided,
    );
    const ready = load();
    const timer = setInterval(load, REFRESH_MS);
    // The countdowns: each card's "expires in" as the clock moves.
    const tick = setInterval(() => {
      for (const el of root.querySelectorAll<HTMLElement>("[data-expires]"))
        if (el.dataset.expires) el.textContent = expiresIn(Number(el.dataset.expires));
    }, TICK_MS);
    return { ready, cleanup: () => (clearInterval(timer), clearInterval(tick)) };
  },
};
