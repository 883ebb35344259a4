/**
 * The words a tool search compares: text split at case changes, `_`, `-`, `/` and anything that is
 * not a letter or digit, lower-cased, common English endings folded ("issues" and "issue" meet), short
 * filler words dropped. Letters of any script are words; Chinese, Japanese and Korean text, written
 * without spaces, is cut into single characters. Web-standard only.
 */

const STOP = new Set(
  (
    "a am an and are as at be by can do for from how i in is it me my of on or our please should some that the " +
    "this to we what which with who whom whose you your"
  ).split(" "),
);

/** Scripts written without spaces between words: each character is a word. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** A word's plural or verb ending folded, so "repositories", "labels", "labeled" meet their stems. */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (word.endsWith("ing") && word.length > 5) return word.slice(0, -3);
  if (word.endsWith("ed") && word.length > 4 && !word.endsWith("eed")) return word.slice(0, -2);
  if (word.endsWith("es") && /(ch|sh|x|ss|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us")) return word.slice(0, -1);
  return word;
}

/** A word's terms: its stem, or for unspaced scripts its characters (mixed runs keep their spaced part whole). */
function wordTerms(word: string): readonly string[] {
  if (!UNSPACED.test(word)) return [stem(word)];
  return word
    .split(/([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])/u)
    .filter((part) => part !== "")
    .map((part) => (UNSPACED.test(part) ? part : stem(part)));
}

/** Words already cut, by word: a catalogue repeats its words, and the regular expressions are the cost. */
const known = new Map<string, readonly string[]>();
const KNOWN_LIMIT = 50_000;

/** The search terms of `text`, in order, repeats kept (their count is the term frequency). */
export function termsOf(text: string): string[] {
  // Printable ASCII needs no normalising (NFKC leaves it as it is).
  const normal = /^[ -~\t\n\r]*$/.test(text) ? text : text.normalize("NFKC");
  const spaced = normal.replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2");
  const terms: string[] = [];
  for (const word of spaced.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === "" || STOP.has(word)) continue;
    let cut = known.get(word);
    if (cut === undefined) {
      cut = wordTerms(word);
      if (known.size >= KNOWN_LIMIT) known.clear();
      known.set(word, cut);
    }
    for (const term of cut) terms.push(term);
  }
  return terms;
}
