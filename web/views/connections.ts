import type { ConnectionState, ConnectionsAnswer } from "../../src/contract";
import { h, notice, replace } from "../app/dom";
import type { Session } from "../app/session";
import type { View } from "../app/view";

const when = (ms: number) => new Date(ms).toLocaleString();
const people = (n: number) => `${n} ${n === 1 ? "person" : "people"}`;

/** What the person holds of one connection: its state, scopes and dates. */
function facts(connection: ConnectionState, count: number | undefined): HTMLElement {
  const state = !connection.connected ? "Not connected" : connection.needsUser ? "Needs connecting again" : "Connected";
  return h(
    "dl",
    { class: "facts" },
    h("dt", {}, "State"),
    h("dd", { "data-field": "state" }, state),
    connection.connected
      ? [
          h("dt", {}, "Scopes"),
          h("dd", { class: "mono" }, connection.scopes?.join(" ") || "(none)"),
          h("dt", {}, "Since"),
          h("dd", {}, connection.connectedAt ? when(connection.connectedAt) : "?"),
          h("dt", {}, "Last used"),
          h("dd", {}, connection.usedAt ? when(connection.usedAt) : "not yet"),
        ]
      : null,
    count === undefined ? null : [h("dt", {}, "Connected"), h("dd", { "data-field": "count" }, people(count))],
  );
}

function card(
  session: Session,
  connection: ConnectionState,
  count: number | undefined,
  out: HTMLElement,
  reload: () => Promise<void>,
): HTMLElement {
  const { title } = connection;
  const connect = h(
    "a",
    { class: "button", href: connection.connectUrl, target: "_blank", rel: "noopener" },
    connection.connected ? `Connect ${title} again` : `Connect ${title}`,
  );
  const disconnect = h(
    "button",
    {
      type: "button",
      class: "danger",
      onclick: async () => {
        try {
          const answer = await session.client.disconnect(connection.name);
          const revoked =
            answer.revoked === "revoked"
              ? ` ${title} revoked the tokens too.`
              : answer.revoked === "failed"
                ? ` ${title} could not revoke them (${answer.detail ?? "no detail"}): revoke its access there.`
                : "";
          replace(out, notice(`Disconnected ${title}.${revoked}`));
          await reload();
        } catch (error) {
          replace(out, notice(`That failed: ${(error as Error).message}`, "error"));
        }
      },
    },
    `Disconnect ${title}`,
  );
  return h(
    "li",
    { class: "card", "data-connection": connection.name },
    h("h2", {}, title),
    facts(connection, count),
    h("p", { class: "actions" }, connect, connection.connected ? [" ", disconnect] : null),
  );
}

/** An admin key (no person): how many people hold each connection. */
function countsOnly(counts: Record<string, number>): HTMLElement[] {
  return Object.entries(counts).map(([name, count]) =>
    h(
      "li",
      { class: "card", "data-connection": name },
      h("h2", {}, name),
      h("dl", { class: "facts" }, h("dt", {}, "Connected"), h("dd", { "data-field": "count" }, people(count))),
    ),
  );
}

/**
 * The upstream accounts tools act as the person through (issue 30): each provider the tenant declares,
 * with a Connect button, and the person's connection (scopes, since, last used) with Disconnect. Admins
 * also see how many people hold each; never a token.
 */
export const connectionsView: View = {
  id: "connections",
  label: "Connections",
  people: true,
  render(root, session) {
    const out = h("div", { "aria-live": "polite" });
    const list = h("ul", { class: "cards", "aria-label": "Connections" });
    const load = async () => {
      const answer: ConnectionsAnswer = await session.client.connections();
      const { connections, counts } = answer;
      if (!connections) {
        replace(list, countsOnly(counts ?? {}));
        return;
      }
      replace(
        list,
        connections.length === 0
          ? h("li", { class: "muted" }, "This tenant declares no connections.")
          : connections.map((connection) => card(session, connection, counts?.[connection.name], out, load)),
      );
    };
    replace(
      root,
      h("h1", { tabindex: -1 }, "Connections"),
      h(
        "p",
        {},
        "Accounts at other services that tools use as you. Connecting opens the service in a new tab; " +
          "disconnecting removes the tokens here and revokes them there.",
      ),
      out,
      list,
    );
    const ready = load().catch((error: unknown) => {
      const missing = (error as { code?: string }).code === "not_found";
      replace(
        out,
        missing
          ? notice("This tenant declares no connections.")
          : notice(`Could not load the connections: ${(error as Error).message}`, "error"),
      );
    });
    return { ready };
  },
};
