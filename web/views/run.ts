import { jsonSchemaValidator } from "../../src/schema/json-schema";
import type { ValidationIssue } from "../../src/errors";
import type { ToolInfo } from "../../src/contract";
import { TERMINAL_STATUSES, type CallRecord } from "../../src/result";
import type { Validator } from "../../src/validation";
import { catalog } from "../app/catalog";
import { parkedConnection } from "../app/connect-link";
import { h, notice, replace } from "../app/dom";
import { markdown } from "../app/markdown";
import { recordView } from "../app/record-view";
import { schemaForm, type SchemaForm } from "../app/schema-form";
import type { Session } from "../app/session";
import { hrefOf, type View } from "../app/view";
import { badges } from "./tools";

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_STATUSES);

function validatorOf(tool: ToolInfo): Validator<unknown> | string {
  try {
    return jsonSchemaValidator(tool.inputSchema);
  } catch (error) {
    return `The browser cannot check this schema (${(error as Error).message}); the server still validates.`;
  }
}

/**
 * The form's box for argument problems: how many, where they are, and a list of those no field in
 * view shows (the arguments as a whole, a property without a field, any in raw JSON mode).
 */
function problems(
  lead: string,
  issues: readonly ValidationIssue[],
  unshown: readonly ValidationIssue[],
): HTMLElement[] {
  const where = unshown.length < issues.length ? " (see the fields)" : "";
  const list =
    unshown.length > 0
      ? [
          h(
            "ul",
            { class: "issues" },
            unshown.map((i) => h("li", {}, `${i.path || "(arguments)"}: ${i.message}`)),
          ),
        ]
      : [];
  return [notice(`${lead}${where}.`, "error"), ...list];
}

/** What a call that waits for someone is waiting for. */
const WAITING: Readonly<Record<string, string>> = {
  pending: "Awaiting an admin's approval…",
  awaiting_input: "Awaiting its caller's answers (an MCP client's tasks/update)…",
};

/** What the call waits for, in words: its user's connection (parked), or WAITING's. */
function waitingFor(record: CallRecord): string {
  const parked = parkedConnection(record);
  if (parked) return "Waiting for you to connect: the call goes on by itself once you have.";
  return WAITING[record.status] ?? `The call is ${record.status}…`;
}

/** Until the call is terminal (a pending approval, a queued call), long-poll its record and redraw. */
async function follow(session: Session, record: CallRecord, out: HTMLElement, alive: () => boolean): Promise<void> {
  let current = record;
  while (!TERMINAL.has(current.status) && alive()) {
    replace(out, notice(waitingFor(current)), recordView(current));
    try {
      // A long poll answers at the end (or at 25 s): a running call is read every 2 s instead, so a
      // detached one that comes to wait for someone (approval, a connection) shows it soon.
      const entry = await session.client.record(current.callId, { wait: current.status === "running" ? 2 : 25 });
      current = entry.record;
      if (TERMINAL.has(current.status) && alive()) replace(out, recordView(entry.record, entry));
    } catch (error) {
      if (alive())
        replace(out, notice(`Lost track of the call: ${(error as Error).message}`, "error"), recordView(current));
      return;
    }
  }
}

function runPanel(session: Session, tool: ToolInfo, alive: () => boolean): HTMLElement {
  const form: SchemaForm = schemaForm(tool.inputSchema);
  const raw = h("textarea", { id: "raw-args", rows: 8, class: "mono", spellcheck: "false" });
  const rawField = h(
    "div",
    { class: "field", hidden: true },
    h("label", { for: "raw-args" }, "Arguments as JSON"),
    raw,
  );
  const modeForm = h("input", { type: "radio", name: "mode", id: "mode-form", value: "form", checked: true });
  const modeRaw = h("input", { type: "radio", name: "mode", id: "mode-raw", value: "raw" });
  const modes = h(
    "fieldset",
    { class: "modes" },
    h("legend", {}, "Input"),
    modeForm,
    h("label", { for: "mode-form" }, "Form"),
    modeRaw,
    h("label", { for: "mode-raw" }, "Raw JSON"),
  );
  const callId = h("input", { id: "call-id", type: "text", autocomplete: "off", placeholder: "generated" });
  const issuesBox = h("div", { "aria-live": "polite" });
  const out = h("div", { class: "result", "aria-live": "polite" });
  const validator = validatorOf(tool);
  const isRaw = () => modeRaw.checked;
  // Issues go on the fields they name (kept for the form mode); in raw JSON mode no field is in view.
  const shownOnFields = (issues: readonly ValidationIssue[]) => {
    const unshown = form.showIssues(issues);
    return isRaw() ? [...issues] : unshown;
  };

  const switchMode = () => {
    if (isRaw()) raw.value = JSON.stringify(form.read().value, null, 2);
    else {
      try {
        form.write(JSON.parse(raw.value || "{}"));
      } catch {
        replace(issuesBox, notice("The raw JSON does not parse; the form keeps its earlier values.", "error"));
      }
    }
    form.element.hidden = isRaw();
    rawField.hidden = !isRaw();
  };
  modeForm.addEventListener("change", switchMode);
  modeRaw.addEventListener("change", switchMode);

  const submit = h("button", { type: "submit" }, `Run ${tool.name}`);
  const element = h(
    "form",
    { class: "run", novalidate: true, "aria-label": `Run ${tool.name}` },
    modes,
    form.element,
    rawField,
    h(
      "div",
      { class: "field" },
      h(
        "label",
        { for: "call-id" },
        "Call id ",
        h("span", { class: "muted" }, "(optional: repeating an id replays its stored outcome)"),
      ),
      callId,
    ),
    issuesBox,
    submit,
    h("h2", {}, "Result"),
    out,
  );
  element.addEventListener("submit", async (event) => {
    event.preventDefault();
    let args: unknown;
    let issues: ValidationIssue[] = [];
    if (isRaw()) {
      try {
        args = JSON.parse(raw.value);
      } catch (error) {
        issues = [{ path: "", message: `Not valid JSON: ${(error as Error).message}` }];
      }
    } else ({ value: args, problems: issues } = form.read());
    // The core's validator, in the page: invalid arguments never leave the browser.
    if (issues.length === 0 && typeof validator === "function") {
      const checked = validator(args);
      if (!checked.ok) issues = checked.issues;
    }
    const unshown = shownOnFields(issues);
    if (issues.length > 0) {
      replace(
        issuesBox,
        problems(`Not sent: ${issues.length} problem${issues.length > 1 ? "s" : ""}`, issues, unshown),
      );
      return;
    }
    replace(issuesBox, typeof validator === "string" ? notice(validator) : null);
    submit.disabled = true;
    replace(out, notice("Running…"));
    try {
      const record = await session.client.call(
        tool.name,
        args as never,
        callId.value.trim() ? { id: callId.value.trim() } : {},
      );
      replace(out, recordView(record));
      // What the server refused goes on its field too, like the browser's own findings.
      const refused = record.status === "rejected" ? (record.validation.issues ?? record.error?.issues ?? []) : [];
      if (refused.length > 0) {
        replace(
          issuesBox,
          problems(
            `The server refused ${refused.length} value${refused.length > 1 ? "s" : ""}`,
            refused,
            shownOnFields(refused),
          ),
        );
      }
      if (!TERMINAL.has(record.status)) await follow(session, record, out, alive);
    } catch (error) {
      replace(out, notice(`The request failed: ${(error as Error).message}`, "error"));
    } finally {
      submit.disabled = false;
    }
  });
  return element;
}

export const runView: View = {
  id: "run",
  label: "Run",
  render(root, session, param) {
    let alive = true;
    const select = h("select", { id: "run-tool" });
    const panel = h("div", {});
    replace(root, h("h1", { tabindex: -1 }, "Run a tool"), h("label", { for: "run-tool" }, "Tool"), select, panel);
    const ready = catalog(session.client).then(
      (tools) => {
        const tool = tools.find((t) => t.name === param) ?? tools[0];
        replace(
          select,
          tools.map((t) => h("option", { value: t.name, selected: t === tool }, t.name)),
        );
        select.addEventListener("change", () => (location.hash = hrefOf("run", select.value)));
        if (tool)
          replace(
            panel,
            markdown(tool.description, "description"),
            badges(tool),
            runPanel(session, tool, () => alive),
          );
      },
      (error) => replace(panel, notice(`Could not load the tools: ${(error as Error).message}`, "error")),
    );
    return {
      ready,
      cleanup: () => {
        alive = false;
      },
    };
  },
};
