import { FORMAT_NAMES, type FormatName } from "../../src/formats/index";
import type { ToolInfo } from "../../src/contract";
import { catalog, definitionIn } from "../app/catalog";
import { h, jsonBlock, notice, replace, uid } from "../app/dom";
import { markdown } from "../app/markdown";
import { hrefOf, type View } from "../app/view";

/** "valibot" is a code tool; adapters name themselves (http, openapi, mcp:<url>). */
function sourceLabel(source: string): string {
  if (source === "valibot" || source === "code") return "code";
  if (source.startsWith("mcp")) return "MCP";
  if (source === "openapi") return "OpenAPI";
  if (source === "http") return "HTTP";
  return source;
}

export function badges(tool: ToolInfo): HTMLElement {
  const p = tool.policy;
  const gate = p.concurrency;
  const concurrency = gate
    ? `concurrency ${gate.limit}${gate.group ? ` (${gate.group})` : ""}${gate.keyed ? " per key" : ""}`
    : "concurrency unlimited";
  const items: [string, string][] = [
    [`risk ${p.risk}`, `risk-${p.risk}`],
    [p.readOnly ? "read-only" : "writes", p.readOnly ? "ok" : "plain"],
    [concurrency, "plain"],
    [`approval ${p.approval}`, p.approval === "never" ? "plain" : "warn"],
    [`source ${sourceLabel(tool.source)}`, "plain"],
  ];
  if (p.idempotent) items.push(["idempotent", "plain"]);
  if (p.denied) items.push(["denied", "risk-high"]);
  return h(
    "ul",
    { class: "badges", "aria-label": `Policy of ${tool.name}` },
    items.map(([text, kind]) => h("li", { class: `badge ${kind}` }, text)),
  );
}

function definitions(tool: ToolInfo, session: Parameters<View["render"]>[1]): HTMLElement {
  const selectId = uid("format");
  const select = h(
    "select",
    { id: selectId },
    FORMAT_NAMES.map((f) => h("option", { value: f }, f)),
  );
  // Busy until every load it started has answered; only the newest load's answer is shown, so a slow
  // answer for the format chosen before cannot replace the one chosen since.
  const out = h("div", { class: "definition", "aria-busy": "false" });
  let latest = 0;
  let pending = 0;
  const show = async () => {
    const mine = ++latest;
    const format = select.value as FormatName;
    pending++;
    out.setAttribute("aria-busy", "true");
    try {
      const definition = await definitionIn(session.client, format, tool.name);
      if (mine === latest) replace(out, jsonBlock(definition, `${tool.name} as ${format}`));
    } catch (error) {
      if (mine === latest)
        replace(out, notice(`Could not load the ${format} definitions: ${(error as Error).message}`, "error"));
    } finally {
      if (--pending === 0) out.setAttribute("aria-busy", "false");
    }
  };
  select.addEventListener("change", show);
  const details = h(
    "details",
    {},
    h("summary", {}, `Definition of ${tool.name}`),
    h("label", { for: selectId }, "Format "),
    select,
    out,
  );
  details.addEventListener("toggle", () => details.open && show(), { once: true });
  return details;
}

function card(tool: ToolInfo, session: Parameters<View["render"]>[1]): HTMLElement {
  return h(
    "li",
    { class: "card tool", "data-tool": tool.name },
    h("h2", {}, tool.title ?? tool.name),
    tool.title ? h("p", { class: "mono" }, tool.name) : null,
    markdown(tool.description, "description"),
    badges(tool),
    h("p", {}, h("a", { href: hrefOf("run", tool.name), class: "button" }, `Run ${tool.name}`)),
    definitions(tool, session),
  );
}

export const toolsView: View = {
  id: "tools",
  label: "Tools",
  render(root, session) {
    const search = h("input", {
      id: "tool-search",
      type: "search",
      placeholder: "name or description",
      autocomplete: "off",
    });
    const count = h("p", { role: "status", class: "muted" });
    const list = h("ul", { class: "cards" });
    replace(
      root,
      h("h1", { tabindex: -1 }, "Tools"),
      h("label", { for: "tool-search" }, "Search tools"),
      search,
      count,
      list,
    );
    let tools: ToolInfo[] = [];
    const draw = () => {
      const q = search.value.trim().toLowerCase();
      const shown = tools.filter(
        (t) =>
          !q ||
          t.name.toLowerCase().includes(q) ||
          t.description.toLowerCase().includes(q) ||
          (t.title ?? "").toLowerCase().includes(q),
      );
      count.textContent = `${shown.length} of ${tools.length} tools`;
      replace(
        list,
        shown.map((tool) => card(tool, session)),
      );
    };
    search.addEventListener("input", draw);
    const ready = catalog(session.client).then(
      (all) => ((tools = all), draw()),
      (error) => replace(list, notice(`Could not load the tools: ${(error as Error).message}`, "error")),
    );
    return { ready };
  },
};
