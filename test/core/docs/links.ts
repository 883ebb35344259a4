import { existsSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { proseOf, readDoc } from "./markdown";

/** A relative link of a markdown file: where it points, and the line it is on. */
export interface Link {
  file: string;
  line: number;
  target: string;
}

/** Relative links and images of a file's prose (not in code; web and mail addresses left out). */
export function relativeLinks(file: string, text: string): Link[] {
  const links: Link[] = [];
  const lines = proseOf(text).split("\n");
  for (const [i, line] of lines.entries()) {
    const plain = line.replace(/`[^`]*`/g, "");
    for (const match of plain.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)|^\s*\[[^\]]+\]:\s*(\S+)/g)) {
      const target = match[1] ?? match[2]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ file, line: i + 1, target });
    }
  }
  return links;
}

/** GitHub's anchors for a file's headings: lowercased, punctuation dropped, spaces as hyphens, repeats numbered. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseOf(text).split("\n")) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Why a link does not resolve (no such file, or no such heading in it), or undefined when it does. */
export function brokenBecause(root: string, link: Link): string | undefined {
  const [path = "", anchor] = link.target.split("#", 2);
  const target = path === "" ? link.file : normalize(join(dirname(link.file), decodeURIComponent(path)));
  if (target.startsWith("..")) return `${target} is outside the repository`;
  if (!existsSync(join(root, target))) return `no file ${target}`;
  if (anchor === undefined) return undefined;
  if (!target.endsWith(".md") || statSync(join(root, target)).isDirectory())
    return `an anchor into ${target}, which is not a markdown file`;
  return headingAnchors(readDoc(root, target)).has(anchor) ? undefined : `no heading "#${anchor}" in ${target}`;
}
