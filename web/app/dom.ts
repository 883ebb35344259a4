/**
 * The console's only way to build DOM. Children are nodes or strings, and strings always become
 * text nodes: tool output, arguments and errors are untrusted and never parsed as HTML.
 */

export type Child = Node | string | number | false | null | undefined;
type Props = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.replace(/^on/, ""), value);
    else if (name === "class") element.className = String(value);
    else if (name === "value" && "value" in element) (element as HTMLInputElement).value = String(value);
    else if (name === "checked" && element instanceof HTMLInputElement) element.checked = Boolean(value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replace an element's children. */
export function replace(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** JSON shown as text in a <pre>, never as markup. */
export function jsonBlock(value: unknown, label: string): HTMLPreElement {
  return h("pre", { class: "json", tabindex: 0, "aria-label": label }, JSON.stringify(value, null, 2) ?? "undefined");
}

let ids = 0;
/** A unique id for label/aria wiring. */
export function uid(prefix: string): string {
  return `${prefix}-${++ids}`;
}

export function time(ms: number | undefined): string {
  return ms === undefined ? "" : new Date(ms).toLocaleTimeString(undefined, { hour12: false });
}

/** A status pill: the text says it, the class only colours it. */
export function statusBadge(status: string): HTMLSpanElement {
  return h("span", { class: `badge status-${status.replace(/[^a-z_]/g, "")}` }, status);
}

/** A polite live region line for messages and errors. */
export function notice(text: string, kind: "info" | "error" = "info"): HTMLParagraphElement {
  return h("p", { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}

/** A call's progress as words: "3 of 10 — 3 of 10 s written", or the count alone. */
export function progressText(progress: { progress?: number; total?: number; message?: string }): string {
  const count =
    progress.total === undefined ? `${progress.progress ?? 0}` : `${progress.progress ?? 0} of ${progress.total}`;
  return progress.message ? `${count} — ${progress.message}` : count;
}
