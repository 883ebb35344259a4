import type { CallerRules } from "../../src/contract";
import { h, uid } from "./dom";

/** The optional rules of a key or an OAuth grant, as form fields: tool allow-list, rate, expiry. */
export function rulesFields(tools?: readonly string[]): { fields: HTMLElement; read(): CallerRules | string } {
  const toolsId = uid("tools");
  const rateId = uid("rate");
  const expiresId = uid("expires");
  const toolsInput = tools
    ? h(
        "select",
        { id: toolsId, multiple: true, size: Math.min(8, tools.length) },
        tools.map((name) => h("option", { value: name }, name)),
      )
    : h("input", { id: toolsId, type: "text", autocomplete: "off", spellcheck: "false", placeholder: "add, echo" });
  const rate = h("input", { id: rateId, type: "number", min: 1, max: 100000, step: 1, inputmode: "numeric" });
  const expires = h("input", { id: expiresId, type: "datetime-local" });
  const fields = h(
    "fieldset",
    {},
    h("legend", {}, "Limits (optional)"),
    h(
      "div",
      { class: "field" },
      h("label", { for: toolsId }, "Only these tools"),
      toolsInput,
      h("p", { class: "hint" }, tools ? "None selected: every tool." : "Comma-separated names; empty: every tool."),
    ),
    h(
      "div",
      { class: "row" },
      h("div", { class: "field" }, h("label", { for: rateId }, "Calls per minute"), rate),
      h("div", { class: "field" }, h("label", { for: expiresId }, "Expires"), expires),
    ),
  );
  return {
    fields,
    read() {
      const rules: CallerRules = {};
      const names =
        toolsInput instanceof HTMLSelectElement
          ? [...toolsInput.selectedOptions].map((o) => o.value)
          : toolsInput.value
              .split(",")
              .map((s) => s.trim())
              .filter(Boolean);
      if (names.length > 0) rules.tools = names;
      if (rate.value !== "") {
        const n = Number(rate.value);
        if (!Number.isInteger(n) || n < 1) return "Calls per minute must be a whole number of at least 1.";
        rules.ratePerMinute = n;
      }
      if (expires.value !== "") {
        const at = new Date(expires.value).getTime();
        if (!(at > Date.now())) return "The expiry must be in the future.";
        rules.expiresAt = at;
      }
      return rules;
    },
  };
}

/** "add, echo · 60/min · until …" for a list row. */
export function rulesText(rules: CallerRules): string {
  const parts = [rules.tools ? `tools: ${rules.tools.join(", ")}` : "every tool"];
  if (rules.ratePerMinute) parts.push(`${rules.ratePerMinute} calls/min`);
  if (rules.expiresAt) parts.push(`expires ${new Date(rules.expiresAt).toLocaleString()}`);
  return parts.join(" · ");
}
