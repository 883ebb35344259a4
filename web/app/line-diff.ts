import { h } from "./dom";

/** Past this many lines a side, the diff shows both sides whole instead (the table is n × m). */
const MAX_LINES = 1_500;

export type DiffLine = { kind: "same" | "removed" | "added"; text: string };

/** A line diff (longest common subsequence) of two texts: what was removed, added, kept. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split("\n");
  const b = after.split("\n");
  if (a.length > MAX_LINES || b.length > MAX_LINES) {
    return [
      ...a.map((text) => ({ kind: "removed" as const, text })),
      ...b.map((text) => ({ kind: "added" as const, text })),
    ];
  }
  // lcs[i][j]: the longest common run of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint16Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) out.push({ kind: "same", text: a[i++]! }), j++;
    else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ kind: "removed", text: a[i++]! });
    else out.push({ kind: "added", text: b[j++]! });
  }
  while (i < a.length) out.push({ kind: "removed", text: a[i++]! });
  while (j < b.length) out.push({ kind: "added", text: b[j++]! });
  return out;
}

const MARK = { same: "  ", removed: "- ", added: "+ " } as const;

/** Two JSON values as a line diff in a <pre>: removed lines marked "-", added "+" (text and colour). */
export function jsonDiff(before: unknown, after: unknown, label: string): HTMLElement {
  const lines = diffLines(JSON.stringify(before, null, 2) ?? "", JSON.stringify(after, null, 2) ?? "");
  return h(
    "pre",
    { class: "diff", tabindex: 0, role: "region", "aria-label": label },
    lines.map((line) => h("span", { class: `diff-${line.kind}` }, `${MARK[line.kind]}${line.text}\n`)),
  );
}
