import { h } from "./dom";

/** Levels open at first; deeper ones are one click away. */
const OPEN_DEPTH = 2;
/** Children shown per object or array; the rest are counted, not drawn (a huge result stays usable). */
const MAX_CHILDREN = 500;

function label(key: string | number | undefined): string {
  return key === undefined ? "" : typeof key === "number" ? `${key}: ` : `${JSON.stringify(key)}: `;
}

function leaf(key: string | number | undefined, value: unknown): HTMLLIElement {
  const type = value === null ? "null" : typeof value;
  return h(
    "li",
    {},
    h("span", { class: "key" }, label(key)),
    h("span", { class: `value ${type}` }, JSON.stringify(value) ?? String(value)),
  );
}

function children(value: object, depth: number): HTMLUListElement {
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value);
  const shown = entries.slice(0, MAX_CHILDREN).map(([k, v]) => node(k, v, depth));
  const rest = entries.length - shown.length;
  return h("ul", {}, shown, rest > 0 ? h("li", { class: "muted" }, `… ${rest} more`) : null);
}

function node(key: string | number | undefined, value: unknown, depth: number): HTMLLIElement {
  if (typeof value !== "object" || value === null) return leaf(key, value);
  const count = Array.isArray(value) ? `[${value.length}]` : `{${Object.keys(value).length}}`;
  return h(
    "li",
    {},
    h(
      "details",
      { open: depth < OPEN_DEPTH },
      h("summary", {}, h("span", { class: "key" }, label(key)), h("span", { class: "muted" }, count)),
      children(value, depth + 1),
    ),
  );
}

/**
 * JSON as a collapsible tree: each object and array a disclosure, each leaf `"key": value` as text
 * (never markup). The first levels are open.
 */
export function jsonTree(value: unknown, name: string): HTMLElement {
  const body = typeof value === "object" && value !== null ? children(value, 0) : h("ul", {}, leaf(undefined, value));
  return h("div", { class: "tree", role: "group", "aria-label": name }, body);
}
