import { h } from "./dom";

const MAX_ROWS = 500;
const MAX_COLUMNS = 20;

type Row = Record<string, unknown>;
const isRow = (value: unknown): value is Row => typeof value === "object" && value !== null && !Array.isArray(value);

/** The rows a table shows: the value itself when it is a list of objects, or its only such field. */
export function tableRows(structured: unknown): { name: string; rows: Row[] } | undefined {
  if (Array.isArray(structured) && structured.every(isRow)) return { name: "Rows", rows: structured };
  if (!isRow(structured)) return undefined;
  const lists = Object.entries(structured).filter(([, v]) => Array.isArray(v) && v.every(isRow));
  return lists.length === 1 ? { name: lists[0]![0], rows: lists[0]![1] as Row[] } : undefined;
}

/** A list of objects as a table: one column per key (first seen first), cells as text. */
export function resultTable(name: string, rows: Row[]): HTMLElement {
  const columns: string[] = [];
  for (const row of rows.slice(0, MAX_ROWS))
    for (const key of Object.keys(row)) if (!columns.includes(key) && columns.length < MAX_COLUMNS) columns.push(key);
  const cell = (value: unknown) => (typeof value === "string" ? value : (JSON.stringify(value) ?? ""));
  const shown = rows.length > MAX_ROWS ? `, first ${MAX_ROWS} shown` : "";
  return h(
    "div",
    { class: "table-wrap", tabindex: 0, role: "region", "aria-label": `Table: ${name}` },
    h(
      "table",
      {},
      h("caption", {}, `${name} (${rows.length} row${rows.length === 1 ? "" : "s"}${shown})`),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          columns.map((c) => h("th", { scope: "col" }, c)),
        ),
      ),
      h(
        "tbody",
        {},
        rows.slice(0, MAX_ROWS).map((row) =>
          h(
            "tr",
            {},
            columns.map((c) => h("td", {}, cell(row[c]))),
          ),
        ),
      ),
    ),
  );
}
