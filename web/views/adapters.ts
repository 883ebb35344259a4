import type { McpServerInfo, RemoteToolInfo } from "../../src/contract";
import { h, jsonBlock, notice, replace } from "../app/dom";
import { jsonDiff } from "../app/line-diff";
import type { Session } from "../app/session";
import type { View } from "../app/view";

const when = (ms: number | undefined) => (ms === undefined ? "never" : new Date(ms).toLocaleString());

/** A server's state in words: reachable or not, its last list, its last error, its breaker. */
function serverState(server: McpServerInfo): HTMLElement {
  const { status } = server;
  const open = status.breaker.openUntil > Date.now();
  return h(
    "dl",
    { class: "facts" },
    h("dt", {}, "State"),
    h(
      "dd",
      { "data-field": "state" },
      h(
        "span",
        { class: `badge ${status.reachable ? "ok" : "risk-high"}` },
        status.reachable ? "reachable" : "unreachable",
      ),
    ),
    h("dt", {}, "Last refresh"),
    h("dd", { "data-field": "listed" }, when(status.listedAt)),
    h("dt", {}, "Last error"),
    h(
      "dd",
      { "data-field": "error" },
      status.lastError ? `${status.lastError.message} (${when(status.lastError.at)})` : "none",
    ),
    h("dt", {}, "Breaker"),
    h(
      "dd",
      {},
      open
        ? `open until ${when(status.breaker.openUntil)} after ${status.breaker.failures} failures`
        : status.breaker.failures > 0
          ? `${status.breaker.failures} failures, closed`
          : "closed",
    ),
    h("dt", {}, "Pinning"),
    h("dd", {}, server.pinning),
    h("dt", {}, "URL"),
    h("dd", { class: "mono" }, server.url),
  );
}

function toolRow(
  session: Session,
  server: McpServerInfo,
  tool: RemoteToolInfo,
  reload: (message: string) => void,
): HTMLElement {
  const out = h("div", { "aria-live": "polite" });
  const decide = (verdict: "approve" | "deny") => async () => {
    replace(out, notice(verdict === "approve" ? "Approving…" : "Denying…"));
    try {
      await session.client.reviewDefinitions(server.name, verdict, [{ tool: tool.tool, hash: tool.hash }]);
      reload(`${verdict === "approve" ? "Approved" : "Denied"} the definition of ${tool.tool}.`);
    } catch (error) {
      replace(out, notice(`Could not ${verdict}: ${(error as Error).message}`, "error"));
    }
  };
  const changed = tool.state === "changed" && tool.approved?.definition !== undefined;
  return h(
    "li",
    { class: "card remote-tool", "data-tool": tool.tool, "data-state": tool.state },
    h("h3", {}, tool.tool, h("span", { class: "muted" }, ` (${tool.remoteName} on ${server.name})`)),
    h(
      "ul",
      { class: "badges", "aria-label": `State of ${tool.tool}` },
      h(
        "li",
        { class: `badge ${tool.state === "approved" ? "ok" : tool.state === "unapproved" ? "warn" : "risk-high"}` },
        tool.state,
      ),
      h("li", { class: "badge" }, tool.callable ? "calls pass" : "calls refused"),
    ),
    h("p", { class: "mono muted" }, `hash ${tool.hash.slice(0, 16)}…`),
    tool.approved
      ? h("p", { class: "muted" }, `Approved by ${tool.approved.by} at ${new Date(tool.approved.at).toLocaleString()}`)
      : null,
    tool.denied
      ? h("p", { class: "muted" }, `Denied by ${tool.denied.by} at ${new Date(tool.denied.at).toLocaleString()}`)
      : null,
    changed
      ? [
          h("h4", {}, "What changed since the approval"),
          jsonDiff(tool.approved!.definition, tool.definition, `Changes to ${tool.tool}`),
        ]
      : null,
    h(
      "details",
      {},
      h("summary", {}, `Definition of ${tool.tool}`),
      jsonBlock(tool.definition, `Definition of ${tool.tool}`),
    ),
    tool.state === "approved"
      ? h(
          "div",
          { class: "row" },
          h(
            "button",
            { type: "button", class: "danger", onclick: decide("deny"), "aria-label": `Deny ${tool.tool}` },
            "Deny",
          ),
        )
      : h(
          "div",
          { class: "row" },
          h("button", { type: "button", onclick: decide("approve"), "aria-label": `Approve ${tool.tool}` }, "Approve"),
          tool.state === "denied"
            ? null
            : h(
                "button",
                { type: "button", class: "danger", onclick: decide("deny"), "aria-label": `Deny ${tool.tool}` },
                "Deny",
              ),
        ),
    out,
  );
}

function serverCard(session: Session, server: McpServerInfo, reload: (message: string) => void): HTMLElement {
  return h(
    "section",
    { class: "server", "data-server": server.name, "aria-label": `MCP server ${server.name}` },
    h("h2", {}, `MCP server ${server.name}`),
    serverState(server),
    server.error ? notice(`Not listed now: ${server.error}`, "error") : null,
    h(
      "ul",
      { class: "cards", "aria-label": `Tools of ${server.name}` },
      server.tools.map((tool) => toolRow(session, server, tool, reload)),
    ),
  );
}

/** The static kinds (HTTP, OpenAPI …): each declaration's name and upstream. */
function staticAdapters(answer: Record<string, unknown>): HTMLElement[] {
  return Object.entries(answer)
    .filter(([kind, list]) => kind !== "mcp" && kind !== "egress" && Array.isArray(list) && list.length > 0)
    .map(([kind, list]) =>
      h(
        "section",
        { "aria-label": `${kind} adapters` },
        h("h2", {}, `${kind.toUpperCase()} adapters`),
        h(
          "ul",
          {},
          (list as { name: string; upstream: string }[]).map((a) =>
            h("li", {}, `${a.name} `, h("span", { class: "mono muted" }, a.upstream)),
          ),
        ),
      ),
    );
}

export const adaptersView: View = {
  id: "adapters",
  label: "Adapters",
  admin: true,
  render(root, session) {
    const state = h("div", { "aria-live": "polite" });
    const body = h("div", { "aria-busy": "true", class: "adapters" });
    const load = async (message?: string) => {
      body.setAttribute("aria-busy", "true");
      try {
        const answer = await session.client.adapters();
        const parts = [
          ...answer.mcp.map((server) => serverCard(session, server, (m) => void load(m))),
          ...staticAdapters(answer),
        ];
        replace(body, parts.length > 0 ? parts : notice("This tenant declares no adapters."));
        replace(state, message ? notice(message) : null);
      } catch (error) {
        replace(state, notice(`Could not load the adapters: ${(error as Error).message}`, "error"));
      }
      body.setAttribute("aria-busy", "false");
    };
    const refresh = h("button", { type: "button", class: "quiet", onclick: () => void load() }, "Refresh");
    replace(
      root,
      h("h1", { tabindex: -1 }, "Adapters"),
      h(
        "p",
        {},
        "Remote MCP servers and HTTP adapters: their state, their tools, and the definitions admins approved.",
      ),
      refresh,
      state,
      body,
    );
    return { ready: load() };
  },
};
