import type { GrantInfo } from "../../src/contract";
import { h, notice, replace } from "../app/dom";
import { rulesText } from "../app/rules-fields";
import type { Session } from "../app/session";
import type { View } from "../app/view";

const when = (ms: number) => new Date(ms).toLocaleString();

/** Whose a grant is, as an admin's list shows it: the person, or the tenant (an admin key approved it). */
function ownerText(grant: GrantInfo): string {
  return grant.user ? (grant.user.name ?? grant.user.id) : "the tenant";
}

function grantRow(session: Session, grant: GrantInfo, out: HTMLElement, reload: () => Promise<void>): HTMLElement {
  const name = grant.details?.clientName ?? grant.clientId;
  return h(
    "li",
    { class: "card", "data-grant": grant.id },
    h("h2", {}, name),
    h(
      "dl",
      { class: "facts" },
      session.admin ? [h("dt", {}, "For"), h("dd", { "data-field": "user" }, ownerText(grant))] : null,
      h("dt", {}, "Client"),
      h("dd", { class: "mono" }, grant.clientId),
      h("dt", {}, "Scope"),
      h("dd", {}, grant.scope.join(" ")),
      h("dt", {}, "Limits"),
      h("dd", {}, rulesText(grant.details ?? {})),
      h("dt", {}, "Approved"),
      h("dd", {}, `${when(grant.createdAt)}${grant.details?.approvedBy ? ` by ${grant.details.approvedBy}` : ""}`),
    ),
    h(
      "button",
      {
        type: "button",
        class: "danger",
        "aria-label": `Revoke the sign-in of ${name}`,
        onclick: async () => {
          try {
            await session.client.revokeGrant(grant.id, session.admin ? grant.owner : undefined);
            replace(out, notice(`Revoked the sign-in of ${name}.`));
            await reload();
          } catch (error) {
            replace(out, notice(`That failed: ${(error as Error).message}`, "error"));
          }
        },
      },
      "Revoke",
    ),
  );
}

/**
 * MCP clients signed in with OAuth: a person sees the ones they connected and revokes them; an admin
 * sees every one (the tenant's and each person's, with whom it is for) and revokes any.
 */
export const connectorsView: View = {
  id: "connectors",
  label: "Connectors",
  people: true,
  render(root, session) {
    const out = h("div", { "aria-live": "polite" });
    const list = h("ul", { class: "cards", "aria-label": "Signed-in clients" });
    const load = async () => {
      const grants = await session.client.grants();
      replace(
        list,
        grants.length === 0
          ? h("li", { class: "muted" }, "No MCP client has signed in yet.")
          : grants.map((grant) => grantRow(session, grant, out, load)),
      );
    };
    replace(
      root,
      h("h1", { tabindex: -1 }, "Connectors"),
      h(
        "p",
        {},
        session.admin
          ? "MCP clients signed in with OAuth: the tenant's and every person's. Revoking one stops it at once."
          : "MCP clients you connected. Revoking one stops it at once.",
      ),
      out,
      list,
    );
    const ready = load().catch((error: unknown) =>
      replace(out, notice(`Could not load the connectors: ${(error as Error).message}`, "error")),
    );
    return { ready };
  },
};
