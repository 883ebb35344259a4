import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A fenced code block of a markdown file: its info string split into language and flags. */
export interface FencedBlock {
  /** The file, relative to the repository's root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** Words after the language (` ```sh no-test ` has the flag `no-test`). */
  flags: string[];
  /** The lines between the fences, without the opening fence's indentation. */
  body: string;
}

/** The documentation the checks read: README.md, every page of docs/, and bench/RESULTS.md. */
export function docFiles(root: string): string[] {
  const pages = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...pages, ...(existsSync(join(root, "bench/RESULTS.md")) ? ["bench/RESULTS.md"] : [])];
}

/** Every fenced block of a file (``` or ~~~, possibly indented under a list item). */
export function fencedBlocks(file: string, text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent = "", fence = "", info = ""] = open;
    const close = new RegExp(`^\\s*${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !close.test(lines[j]!); j++)
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!);
    const [lang = "", ...flags] = info.trim().split(/\s+/).filter(Boolean);
    blocks.push({ file, line: i + 1, lang, flags, body: body.join("\n") });
    i = j;
  }
  return blocks;
}

/** The text of a file outside its fenced blocks (fence lines and their contents become empty lines). */
export function proseOf(text: string): string {
  const lines = text.split("\n");
  let fence: RegExp | undefined;
  return lines
    .map((line) => {
      if (fence) {
        if (fence.test(line)) fence = undefined;
        return "";
      }
      const open = /^\s*(`{3,}|~{3,})/.exec(line);
      if (open) {
        fence = new RegExp(`^\\s*${open[1]![0] === "`" ? "`" : "~"}{${open[1]!.length},}\\s*$`);
        return "";
      }
      return line;
    })
    .join("\n");
}

/** Reads a documentation file. */
export function readDoc(root: string, file: string): string {
  return readFileSync(join(root, file), "utf8");
}
