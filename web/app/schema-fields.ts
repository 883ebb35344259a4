import type { ValidationIssue } from "../../src/errors";
import { h, uid } from "./dom";
import { inlineMarkdown } from "./markdown";
import { constraintAttributes, constraintsOf } from "./schema-constraints";
import type { Node } from "./schema-node";

/** A field's value when it should be left out of the arguments (an empty optional field). */
export const ABSENT = Symbol("absent");

export interface Field {
  element: HTMLElement;
  /** The value, or ABSENT; problems the browser finds before validation (bad JSON) go into `problems`. */
  read(path: string, problems: ValidationIssue[]): unknown;
  write(value: unknown): void;
  /** Shows the issues of this path (and its children's) next to the controls, noting what it showed. */
  mark(path: string, marks: Marks): void;
}

/** Issue messages by path; each field adds the paths it shows to `shown` (the form's box lists the rest). */
export interface Marks {
  byPath: ReadonlyMap<string, string[]>;
  shown: Set<string>;
}

/**
 * The messages a field shows for its path, noted as shown. A raw JSON field (`deep`) also takes those
 * of paths inside its value, each with its path from there ("[0].x: …").
 */
export function take(path: string, marks: Marks, deep = false): string[] {
  const messages: string[] = [];
  for (const [at, said] of marks.byPath) {
    const inside = deep && at !== path && (path === "" || at.startsWith(`${path}.`) || at.startsWith(`${path}[`));
    if (at !== path && !inside) continue;
    marks.shown.add(at);
    messages.push(
      ...(inside ? said.map((message) => `${at.slice(path.length).replace(/^\./, "")}: ${message}`) : said),
    );
  }
  return messages;
}

export interface LeafSpec {
  node: Node;
  label: string;
  required: boolean;
}

/** Label, control, description and error text, wired with for/aria-describedby. */
function wrap(
  spec: LeafSpec,
  control: HTMLElement & { id: string },
  deep = false,
): { element: HTMLElement; mark: Field["mark"] } {
  const hintId = uid("hint");
  const rulesId = uid("rules");
  const errorId = uid("error");
  const error = h("p", { id: errorId, class: "field-error", hidden: true });
  const rules = constraintsOf(spec.node.schema);
  const described = [spec.node.description ? hintId : "", rules.length > 0 ? rulesId : "", errorId]
    .filter(Boolean)
    .join(" ");
  control.setAttribute("aria-describedby", described);
  if (spec.required) control.setAttribute("aria-required", "true");
  for (const [name, value] of Object.entries(constraintAttributes(spec.node.schema)))
    if (!control.hasAttribute(name)) control.setAttribute(name, value);
  const element = h(
    "div",
    { class: "field" },
    h("label", { for: control.id }, spec.label, spec.required ? "" : h("span", { class: "muted" }, " (optional)")),
    control,
    spec.node.description ? h("p", { id: hintId, class: "hint" }, inlineMarkdown(spec.node.description)) : null,
    rules.length > 0 ? h("p", { id: rulesId, class: "hint rules" }, rules.join(" · ")) : null,
    error,
  );
  const mark: Field["mark"] = (path, marks) => {
    const mine = take(path, marks, deep);
    error.hidden = mine.length === 0;
    error.textContent = mine.join("; ");
    if (mine.length > 0) control.setAttribute("aria-invalid", "true");
    else control.removeAttribute("aria-invalid");
  };
  return { element, mark };
}

function emptyValue(spec: LeafSpec): unknown {
  if (!spec.required) return ABSENT;
  return spec.node.nullable ? null : ABSENT;
}

export function textField(spec: LeafSpec): Field {
  const max = typeof spec.node.schema.maxLength === "number" ? spec.node.schema.maxLength : Infinity;
  const control =
    max > 200
      ? h("textarea", { id: uid("f"), rows: 3 })
      : h("input", { id: uid("f"), type: "text", autocomplete: "off" });
  const { element, mark } = wrap(spec, control);
  return {
    element,
    mark,
    read: () => (control.value === "" && !spec.required ? ABSENT : control.value),
    write: (value) => (control.value = typeof value === "string" ? value : ""),
  };
}

export function numberField(spec: LeafSpec): Field {
  const integer = spec.node.kind === "integer";
  const control = h("input", {
    id: uid("f"),
    type: "number",
    step: integer ? "1" : "any",
    inputmode: integer ? "numeric" : "decimal",
  });
  const { element, mark } = wrap(spec, control);
  return {
    element,
    mark,
    read(path, problems) {
      if (control.validity.badInput) {
        problems.push({ path, message: "Not a number" });
        return ABSENT;
      }
      return control.value === "" ? emptyValue(spec) : Number(control.value);
    },
    write: (value) => (control.value = typeof value === "number" ? String(value) : ""),
  };
}

/** Required booleans are a checkbox; optional ones a select, so "not set" stays expressible. */
export function booleanField(spec: LeafSpec): Field {
  if (spec.required && !spec.node.nullable) {
    const control = h("input", { id: uid("f"), type: "checkbox" });
    const { element, mark } = wrap(spec, control);
    element.classList.add("check");
    return { element, mark, read: () => control.checked, write: (value) => (control.checked = value === true) };
  }
  return choiceField(spec, [true, false]);
}

/** A select over fixed values (enum, const, optional booleans); values are kept by index, shown as text. */
export function choiceField(spec: LeafSpec, values: readonly unknown[] = spec.node.enumValues ?? []): Field {
  // Always a blank first option: a required choice is made by the user, never preselected silently.
  const blank = !spec.required ? "(not set)" : spec.node.nullable ? "null" : "(choose)";
  const control = h(
    "select",
    { id: uid("f") },
    h("option", { value: "" }, blank),
    values.map((value, i) =>
      h("option", { value: String(i) }, typeof value === "string" ? value : JSON.stringify(value)),
    ),
  );
  const { element, mark } = wrap(spec, control);
  return {
    element,
    mark,
    read: () => (control.value === "" ? emptyValue(spec) : values[Number(control.value)]),
    write(value) {
      const index = values.findIndex((v) => JSON.stringify(v) === JSON.stringify(value));
      control.value = index >= 0 ? String(index) : "";
    },
  };
}

/** Raw JSON for what a form cannot express (unions, recursion, tuples). */
export function jsonField(spec: LeafSpec): Field {
  const control = h("textarea", { id: uid("f"), rows: 3, class: "mono", spellcheck: "false" });
  const { element, mark } = wrap(
    { ...spec, node: { ...spec.node, description: `${spec.node.description ?? ""} (JSON)`.trim() } },
    control,
    true,
  );
  return {
    element,
    mark,
    read(path, problems) {
      if (control.value.trim() === "") return emptyValue(spec);
      try {
        return JSON.parse(control.value);
      } catch (error) {
        problems.push({ path, message: `Not valid JSON: ${(error as Error).message}` });
        return ABSENT;
      }
    },
    write: (value) => (control.value = value === undefined ? "" : JSON.stringify(value)),
  };
}
