import { h, type Child } from "./dom";

/**
 * A small markdown subset as DOM (headings, paragraphs, lists, fenced code, bold, italic, inline code,
 * http(s) links). It builds elements itself and puts every piece of the source in text nodes: the
 * source is tool output or a tool's description, so no HTML in it is ever parsed. `kind` is a class
 * the block gets besides `markdown` (a result, a description).
 */
export function markdown(source: string, kind?: string): HTMLElement {
  const root = h("div", { class: kind ? `markdown ${kind}` : "markdown" });
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.startsWith("```")) {
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith("```"); i++) code.push(lines[i]!);
      root.append(h("pre", { tabindex: 0 }, code.join("\n")));
      i++;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      // Inside a record, # is a fourth-level heading: the page's own outline stays above it.
      const level = Math.min(6, heading[1]!.length + 3) as 4 | 5 | 6;
      root.append(h(`h${level}`, {}, inlineMarkdown(heading[2]!)));
      i++;
      continue;
    }
    const bullet = /^\s*[-*+]\s+/;
    const numbered = /^\s*\d+[.)]\s+/;
    if (bullet.test(line) || numbered.test(line)) {
      const pattern = bullet.test(line) ? bullet : numbered;
      const items: HTMLLIElement[] = [];
      for (; i < lines.length && pattern.test(lines[i]!); i++)
        items.push(h("li", {}, inlineMarkdown(lines[i]!.replace(pattern, ""))));
      root.append(pattern === bullet ? h("ul", {}, items) : h("ol", {}, items));
      continue;
    }
    if (line.trim() === "") {
      i++;
      continue;
    }
    const paragraph: string[] = [];
    for (
      ;
      i < lines.length && lines[i]!.trim() !== "" && !/^(#{1,6}\s|```|\s*[-*+]\s|\s*\d+[.)]\s)/.test(lines[i]!);
      i++
    )
      paragraph.push(lines[i]!);
    root.append(h("p", {}, inlineMarkdown(paragraph.join(" "))));
  }
  return root;
}

// Underscores inside a word (snake_case names) are not emphasis, as in CommonMark.
const INLINE_SPANS = [
  String.raw`\*\*([^*]+)\*\*`, // **strong**
  String.raw`(?<![\p{L}\p{N}])__([^_]+)__(?![\p{L}\p{N}])`, // __strong__
  String.raw`\*([^*]+)\*`, // *emphasis*
  String.raw`(?<![\p{L}\p{N}_])_([^_]+)_(?![\p{L}\p{N}_])`, // _emphasis_
  "`([^`]+)`", // `code`
  String.raw`\[([^\]]+)\]\(([^)\s]+)\)`, // [link](href)
];
const INLINE = new RegExp(`(${INLINE_SPANS.join("|")})`, "u");

/** Inline spans of a block (or of a field's one-line hint) as nodes; links only to http(s) addresses. */
export function inlineMarkdown(text: string): Child[] {
  const out: Child[] = [];
  let rest = text;
  for (let match = INLINE.exec(rest); match; match = INLINE.exec(rest)) {
    if (match.index > 0) out.push(rest.slice(0, match.index));
    const [whole, , bold1, bold2, em1, em2, code, linkText, href] = match;
    if (bold1 ?? bold2) out.push(h("strong", {}, bold1 ?? bold2));
    else if (em1 ?? em2) out.push(h("em", {}, em1 ?? em2));
    else if (code) out.push(h("code", {}, code));
    else out.push(safeLink(href!, linkText!));
    rest = rest.slice(match.index + whole.length);
  }
  if (rest) out.push(rest);
  return out;
}

/** A link that opens apart from the console, for http(s) only; anything else stays text. */
export function safeLink(href: string, text: string): Child {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return text;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return text;
  return h("a", { href: url.href, target: "_blank", rel: "noopener noreferrer" }, text);
}
