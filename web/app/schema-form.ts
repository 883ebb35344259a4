import type { ValidationIssue } from "../../src/errors";
import { isPlainObject, type JsonSchema } from "../../src/json";
import { h, uid } from "./dom";
import {
  ABSENT,
  booleanField,
  choiceField,
  jsonField,
  numberField,
  take,
  textField,
  type Field,
  type LeafSpec,
  type Marks,
} from "./schema-fields";
import { childPath, nodeOf, type Node } from "./schema-node";

/** Deeper than this, a form stops nesting and takes raw JSON (also ends recursive schemas). */
const MAX_DEPTH = 6;

interface Spec extends LeafSpec {
  root: JsonSchema;
  depth: number;
}

function fieldFor(spec: Spec): Field {
  const { kind } = spec.node;
  if (spec.depth > MAX_DEPTH) return jsonField(spec);
  if (kind === "string") return textField(spec);
  if (kind === "number" || kind === "integer") return numberField(spec);
  if (kind === "boolean") return booleanField(spec);
  if (kind === "enum") return choiceField(spec);
  if (kind === "object") return objectField(spec);
  if (kind === "array") return arrayField(spec);
  return jsonField(spec);
}

/** Own fields for declared properties; an optional nested object has an "include" switch. */
function objectField(spec: Spec): Field {
  const properties = isPlainObject(spec.node.schema.properties)
    ? (spec.node.schema.properties as Record<string, JsonSchema>)
    : {};
  const required = new Set(Array.isArray(spec.node.schema.required) ? (spec.node.schema.required as string[]) : []);
  const children = Object.entries(properties).map(([key, schema]) => {
    const node = nodeOf(schema, spec.root);
    return {
      key,
      field: fieldFor({
        node,
        label: node.title ?? key,
        required: required.has(key),
        root: spec.root,
        depth: spec.depth + 1,
      }),
    };
  });
  // The root's own issues (arguments that are no object, a property no field shows) go in the form's box.
  const error = spec.depth > 0 ? h("p", { class: "field-error", hidden: true }) : null;
  const inner = h(
    "fieldset",
    {},
    h("legend", {}, spec.label),
    children.map((c) => c.field.element),
    error,
  );
  const optional = spec.depth > 0 && !spec.required;
  const toggleId = uid("include");
  const include = h("input", { id: toggleId, type: "checkbox" });
  const element = optional
    ? h(
        "div",
        { class: "field" },
        h("div", { class: "check" }, include, h("label", { for: toggleId }, `Include ${spec.label}`)),
        inner,
      )
    : inner;
  const sync = () => (inner.disabled = !include.checked);
  if (optional) {
    include.addEventListener("change", sync);
    sync();
  }
  return {
    element,
    read(path, problems) {
      if (optional && !include.checked) return ABSENT;
      const value: Record<string, unknown> = {};
      for (const { key, field } of children) {
        const item = field.read(childPath(path, key), problems);
        if (item !== ABSENT) value[key] = item;
      }
      return value;
    },
    write(value) {
      include.checked = isPlainObject(value);
      if (optional) sync();
      for (const { key, field } of children) field.write(isPlainObject(value) ? value[key] : undefined);
    },
    mark(path, marks) {
      if (error) {
        const mine = take(path, marks);
        inner.classList.toggle("invalid", mine.length > 0);
        error.hidden = mine.length === 0;
        error.textContent = mine.join("; ");
      }
      for (const { key, field } of children) field.mark(childPath(path, key), marks);
    },
  };
}

/** A list of item fields with Add and Remove buttons (each named after the list, for screen readers). */
function arrayField(spec: Spec): Field {
  const itemSchema = isPlainObject(spec.node.schema.items) ? (spec.node.schema.items as JsonSchema) : {};
  const itemNode: Node = nodeOf(itemSchema, spec.root);
  const items: Field[] = [];
  const list = h("ol", { class: "items" });
  const error = h("p", { class: "field-error", hidden: true });
  const add = (value?: unknown) => {
    const field = fieldFor({
      node: itemNode,
      label: `${spec.label} item`,
      required: true,
      root: spec.root,
      depth: spec.depth + 1,
    });
    if (value !== undefined) field.write(value);
    items.push(field);
    draw();
    return field;
  };
  const draw = () => {
    // Items are named by position ("tags item 2"), renumbered after a removal.
    items.forEach((field, i) => {
      const name = field.element.querySelector("label, legend");
      if (name) name.textContent = `${spec.label} item ${i + 1}`;
    });
    list.replaceChildren(
      ...items.map((field, i) =>
        h(
          "li",
          {},
          field.element,
          h(
            "button",
            {
              type: "button",
              class: "quiet",
              "aria-label": `Remove item ${i + 1} of ${spec.label}`,
              onclick: () => (items.splice(i, 1), draw()),
            },
            "Remove",
          ),
        ),
      ),
    );
  };
  const addButton = h(
    "button",
    { type: "button", "aria-label": `Add item to ${spec.label}`, onclick: () => add() },
    "Add item",
  );
  const element = h(
    "fieldset",
    { class: "array" },
    h("legend", {}, spec.label, spec.required ? "" : h("span", { class: "muted" }, " (optional)")),
    list,
    addButton,
    error,
  );
  return {
    element,
    read(path, problems) {
      if (items.length === 0 && !spec.required) return ABSENT;
      return items.map((field, i) => {
        const value = field.read(childPath(path, i), problems);
        return value === ABSENT ? null : value;
      });
    },
    write(value) {
      items.length = 0;
      draw();
      if (Array.isArray(value)) for (const item of value) add(item);
    },
    mark(path, marks) {
      const mine = take(path, marks);
      error.hidden = mine.length === 0;
      error.textContent = mine.join("; ");
      for (const [i, field] of items.entries()) field.mark(childPath(path, i), marks);
    },
  };
}

export interface SchemaForm {
  element: HTMLElement;
  /** The arguments, plus problems found while reading (bad JSON in a raw field, not a number). */
  read(): { value: unknown; problems: ValidationIssue[] };
  write(value: unknown): void;
  /**
   * Shows validation issues on the fields they name (an empty list clears them); answers the ones no
   * field shows (about the arguments as a whole, or a property without a field), for the form's box.
   */
  showIssues(issues: readonly ValidationIssue[]): ValidationIssue[];
}

/** A form generated from a tool's input schema (an object at the root). */
export function schemaForm(schema: JsonSchema, label = "Arguments"): SchemaForm {
  const node = nodeOf(schema, schema);
  const root = fieldFor({
    node: node.kind === "object" ? node : { ...node, kind: "json" },
    label,
    required: true,
    root: schema,
    depth: 0,
  });
  return {
    element: root.element,
    read() {
      const problems: ValidationIssue[] = [];
      const value = root.read("", problems);
      return { value: value === ABSENT ? {} : value, problems };
    },
    write: (value) => root.write(value),
    showIssues(issues) {
      const byPath = new Map<string, string[]>();
      for (const issue of issues) byPath.set(issue.path, [...(byPath.get(issue.path) ?? []), issue.message]);
      const marks: Marks = { byPath, shown: new Set() };
      root.mark("", marks);
      return issues.filter((issue) => !marks.shown.has(issue.path));
    },
  };
}
