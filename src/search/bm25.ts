import { termsOf } from "./terms";

/** One document's fields, each with its weight: a term in a weight-3 field counts three times. */
export interface Fields {
  [field: string]: { text: string; weight: number };
}

/**
 * A BM25F index (Robertson, Zaragoza, Taylor 2004): per term, the documents that have it and its
 * frequency there, each field's count weighted and normalised by that field's length against its
 * average, so a long description does not bury a matching name.
 */
export interface Bm25Index {
  readonly size: number;
  /** Term → [document, normalised weighted frequency, document, frequency, …]. */
  readonly postings: ReadonlyMap<string, readonly number[]>;
  /** Every term, sorted (for prefix look-ups). */
  readonly vocabulary: readonly string[];
}

/** Standard BM25 constants: term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;

/** The index of these documents (their position is their id). */
export function buildBm25(documents: readonly Fields[]): Bm25Index {
  const tokenized = documents.map((fields) =>
    Object.entries(fields).map(([field, { text, weight }]) => ({ field, weight, terms: termsOf(text) })),
  );
  const totals = new Map<string, number>();
  for (const fields of tokenized)
    for (const { field, terms } of fields) totals.set(field, (totals.get(field) ?? 0) + terms.length);
  const postings = new Map<string, number[]>();
  tokenized.forEach((fields, id) => {
    const frequencies = new Map<string, number>();
    for (const { field, weight, terms } of fields) {
      const average = (totals.get(field) ?? 0) / documents.length || 1;
      const norm = 1 - B + (B * terms.length) / average;
      for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + weight / norm);
    }
    for (const [term, frequency] of frequencies) {
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push(id, frequency);
    }
  });
  return { size: documents.length, postings, vocabulary: [...postings.keys()].sort() };
}

/** The index's terms that start with `prefix` (itself excluded), at most `limit`, in order. */
export function termsStartingWith(index: Bm25Index, prefix: string, limit: number): string[] {
  const { vocabulary } = index;
  let low = 0;
  let high = vocabulary.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (vocabulary[middle]! < prefix) low = middle + 1;
    else high = middle;
  }
  const found: string[] = [];
  for (let i = low; i < vocabulary.length && found.length < limit && vocabulary[i]!.startsWith(prefix); i++)
    if (vocabulary[i] !== prefix) found.push(vocabulary[i]!);
  return found;
}

/** A ranked document: its id and score (higher is better). */
export interface Hit {
  id: number;
  score: number;
}

/**
 * The documents matching any of `terms`, best first (ties by id), at most `limit`, skipping those
 * `keep` refuses. Each distinct term counts once; its weight scales its part of the score.
 */
export function rankBm25(
  index: Bm25Index,
  terms: ReadonlyMap<string, number>,
  limit: number,
  keep: (id: number) => boolean = () => true,
): Hit[] {
  const scores = new Map<number, number>();
  for (const [term, weight] of terms) {
    const list = index.postings.get(term);
    if (!list) continue;
    const matched = list.length / 2;
    const idf = Math.log(1 + (index.size - matched + 0.5) / (matched + 0.5));
    for (let i = 0; i < list.length; i += 2) {
      const id = list[i]!;
      const frequency = list[i + 1]!;
      scores.set(id, (scores.get(id) ?? 0) + (weight * idf * frequency * (K1 + 1)) / (frequency + K1));
    }
  }
  const hits: Hit[] = [];
  for (const [id, score] of scores) if (keep(id)) hits.push({ id, score });
  hits.sort((a, b) => b.score - a.score || a.id - b.id);
  return hits.slice(0, limit);
}
