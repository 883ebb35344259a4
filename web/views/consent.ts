import { isApiError } from "../../src/client";
import type { ConsentDetails } from "../../src/contract";
import { h, notice, replace, uid } from "../app/dom";
import { rulesFields } from "../app/rules-fields";
import type { Session } from "../app/session";
import type { View } from "../app/view";

/** Leaves the console for the client's redirect URI (a separate function so tests can watch it). */
function goBack(url: string): void {
  window.location.assign(url);
}

function describe(details: ConsentDetails): HTMLElement {
  const { consent } = details;
  return h(
    "dl",
    { class: "facts", "aria-label": "The client asking" },
    h("dt", {}, "Client"),
    h("dd", { "data-field": "client" }, consent.clientName),
    consent.clientDomain
      ? [h("dt", {}, "Verified domain"), h("dd", {}, consent.clientDomain)]
      : [h("dt", {}, "Client ID"), h("dd", { class: "mono" }, consent.clientId)],
    h("dt", {}, "Sends the sign-in to"),
    h(
      "dd",
      { "data-field": "redirect" },
      h("strong", {}, consent.redirectHost),
      " ",
      h("span", { class: "mono" }, consent.redirectUri),
    ),
    details.server?.resource
      ? [
          h("dt", {}, "To use"),
          h(
            "dd",
            { "data-field": "server" },
            details.server.endpoint ? `the MCP endpoint ${details.server.endpoint} ` : "every tool of the MCP server ",
            h("span", { class: "mono" }, details.server.resource),
          ),
        ]
      : null,
    h("dt", {}, "Asks for"),
    h(
      "dd",
      { "data-field": "scope" },
      consent.scope.length > 0 ? consent.scope.join(" ") : "no scope named (call by default)",
    ),
  );
}

function decisionForm(session: Session, handle: string, details: ConsentDetails, out: HTMLElement): HTMLElement {
  const scopeName = uid("scope");
  const asked = details.consent.scope.includes("admin") && (details.approver?.admin ?? true) ? "admin" : "call";
  const radio = (value: "call" | "admin", text: string) => {
    const id = uid("scope");
    return h(
      "div",
      { class: "check" },
      h("input", { type: "radio", id, name: scopeName, value, checked: value === asked }),
      h("label", { for: id }, text),
    );
  };
  const rules = rulesFields(details.tools);
  // Only admins may grant admin: others are offered call alone.
  const mayAdmin = details.approver?.admin ?? true;
  const approve = h("button", { type: "submit" }, "Approve");
  const deny = h("button", { type: "button", class: "danger" }, "Deny");
  const form = h(
    "form",
    { "aria-label": "Decide the sign-in" },
    h(
      "fieldset",
      {},
      h("legend", {}, "Grant"),
      radio("call", "call: list tools, run calls, read its own records"),
      mayAdmin ? radio("admin", "admin: everything, including every record") : null,
    ),
    rules.fields,
    h("div", { class: "row" }, approve, deny),
  );
  const send = async (decision: "approve" | "deny") => {
    const read = rules.read();
    if (typeof read === "string") return replace(out, notice(read, "error"));
    approve.disabled = deny.disabled = true;
    replace(out, notice(decision === "approve" ? "Approving…" : "Denying…"));
    try {
      const scope = (form.querySelector<HTMLInputElement>(`input[name="${scopeName}"]:checked`)?.value ?? "call") as
        | "call"
        | "admin";
      const { redirectTo } = await session.client.decideConsent(
        handle,
        decision === "approve" ? { decision, scope, ...read } : { decision },
      );
      replace(
        out,
        notice(decision === "approve" ? "Approved. Returning to the client…" : "Denied. Returning to the client…"),
      );
      goBack(redirectTo);
    } catch (error) {
      replace(out, notice(`The decision failed: ${(error as Error).message}`, "error"));
      approve.disabled = deny.disabled = false;
    }
  };
  form.addEventListener("submit", (event) => (event.preventDefault(), void send("approve")));
  deny.addEventListener("click", () => void send("deny"));
  return form;
}

/**
 * Where GET /authorize sends the browser (#/consent/<handle>): a person (for themselves) or an admin
 * key (for the tenant) sees which client asks, where
 * the sign-in goes and what it asks for, then approves (with a scope and optional limits) or denies.
 * Not in the navigation. Every string about the client is the client's own: shown as text only.
 */
export const consentView: View = {
  id: "consent",
  label: "Sign-in request",
  hidden: true,
  render(root, session, handle) {
    const out = h("div", { "aria-live": "polite" });
    const body = h("div", {});
    replace(root, h("h1", { tabindex: -1 }, "Sign-in request"), body, out);
    if (!handle) {
      replace(body, notice("No sign-in request here: start the sign-in from the MCP client.", "error"));
      return {};
    }
    const ready = session.client.consent(handle).then(
      (details) => {
        const loopback = details.consent.redirectIsLoopback
          ? notice("The sign-in goes to a program on this computer: approve only if you started it here.")
          : null;
        const person = details.approver?.user;
        const asks = person
          ? `Connect ${details.consent.clientName} for you (${person.name ?? person.id}): ` +
            `it will use this tenant's tools (${session.who.tenant}) as you, within your role.`
          : `An MCP client asks to use this tenant's tools (${session.who.tenant}).`;
        replace(
          body,
          h("p", { "data-field": "asks" }, asks),
          describe(details),
          loopback,
          decisionForm(session, handle, details, out),
        );
      },
      (error: unknown) => {
        const message =
          isApiError(error) && error.status === 403
            ? "Only a person signed in or an admin key can approve sign-ins: sign out and sign in that way."
            : isApiError(error) && error.status === 410
              ? "This sign-in request expired or was already decided. Start the sign-in again from the client."
              : `Could not load the sign-in request: ${(error as Error).message}`;
        replace(body, notice(message, "error"));
      },
    );
    return { ready };
  },
};
