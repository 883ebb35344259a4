import type { ToolIndex } from "./tool-index";

/**
 * A tool index as JSON text, for the build to write beside a bundled tenant's listings and its Worker
 * to read on the first search instead of building it: the tools' names, then the sorted vocabulary
 * and, in the same order, each term's postings. Numbers round-trip exactly, so rankings are the same.
 */
export function toolIndexText(index: ToolIndex): string {
  const { vocabulary, postings } = index.bm25;
  return JSON.stringify({ names: index.names, terms: vocabulary, postings: vocabulary.map((t) => postings.get(t)) });
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * The index of these tools (`names`, in order) from toolIndexText's text; undefined when the text is
 * not one, or was written for other tools.
 */
export function readToolIndex(text: string, names: readonly string[]): ToolIndex | undefined {
  let value: { names?: unknown; terms?: unknown; postings?: unknown };
  try {
    value = JSON.parse(text) as typeof value;
  } catch {
    return undefined;
  }
  const { terms, postings } = value;
  if (!Array.isArray(value.names) || value.names.length !== names.length) return undefined;
  if (!value.names.every((name, i) => name === names[i])) return undefined;
  if (!Array.isArray(terms) || !Array.isArray(postings) || terms.length !== postings.length) return undefined;
  const map = new Map<string, readonly number[]>();
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i];
    const list = postings[i];
    // Sorted, as prefix look-ups need; each posting a document of these tools and a frequency.
    if (typeof term !== "string" || (i > 0 && !(terms[i - 1] < term))) return undefined;
    if (!Array.isArray(list) || list.length % 2 !== 0) return undefined;
    for (let j = 0; j < list.length; j += 2)
      if (!isCount(list[j]) || list[j] >= names.length || typeof list[j + 1] !== "number") return undefined;
    map.set(term, list as number[]);
  }
  return { names: [...names], bm25: { size: names.length, postings: map, vocabulary: terms as string[] } };
}
