import { readFileSync } from "node:fs";
import { parseDependencyTree } from "dpdm";

/**
 * The layer rules of docs/architecture.json, read and applied: which part a file is in, and whether
 * one part may import another. test/core/architecture/layers.test.ts checks every import of the
 * repository with it.
 */

export const RULES_FILE = "docs/architecture.json";

/** One part as the rules file declares it. */
export interface PartSpec {
  /** A folder (ends in /), a file, or a module scheme (ends in :, as node:). */
  path: string;
  about: string;
  imports?: string[];
  types?: string[];
  except?: string[];
}

export type Parts = Record<string, PartSpec>;

/** One import: a file of the repository and the file (or built-in module) it imports. */
export interface Arrow {
  file: string;
  imported: string;
  /** Whether it imports types only (the compiled JavaScript does not import it). */
  typesOnly: boolean;
}

/** Where the scanned files live: every folder of the repository that holds code. */
export const CODE_FOLDERS = [
  ...["src", "worker", "web", "tools", "tenants", "packages", "examples", "scripts", "bench", "test"],
];
const CODE_FILES = "**/*.{ts,tsx,mts,mjs}";

export function readParts(file = RULES_FILE): Parts {
  return (JSON.parse(readFileSync(file, "utf8")) as { parts: Parts }).parts;
}

/** Whether a path names a folder or a scheme (a prefix of the files in it) rather than one file. */
export const isPrefixPath = (path: string): boolean => path.endsWith("/") || path.endsWith(":");

/** Whether a part's path holds a file: the file itself, or a folder or scheme it starts with. */
export const holds = (path: string, file: string): boolean =>
  isPrefixPath(path) ? file.startsWith(path) : file === path;

/** The part a file is in: the one with the longest path that holds it; undefined for none. */
export function partOf(parts: Parts, file: string): string | undefined {
  let found: string | undefined;
  let longest = -1;
  for (const [name, { path }] of Object.entries(parts)) {
    if (holds(path, file) && path.length > longest) [found, longest] = [name, path.length];
  }
  return found;
}

/** Whether a name of the rules (a part, or * for every part) covers a part: itself and its sub-parts. */
export const covers = (name: string, part: string): boolean =>
  name === "*" || part === name || part.startsWith(`${name}/`);

/** The part a sub-part is in (core for core/pipeline); undefined for a top part. */
export const parentOf = (part: string): string | undefined =>
  part.includes("/") ? part.slice(0, part.lastIndexOf("/")) : undefined;

/** The part whose rules apply to `part`: itself if it states imports or types, else its nearest ancestor that does. */
export function ruledBy(parts: Parts, part: string): string | undefined {
  for (let name: string | undefined = part; name; name = parentOf(name)) {
    const spec = parts[name];
    if (spec && (spec.imports || spec.types)) return name;
  }
  return undefined;
}

/** The paths of the parts whose rules allow types alone: only their imports need telling apart by kind. */
export const typedPaths = (parts: Parts): string[] =>
  Object.entries(parts).flatMap(([name, { path }]) => (parts[ruledBy(parts, name) ?? ""]?.types ? [path] : []));

/** Why `from` may not import `to` (types only or not), or undefined when the rules allow it. */
export function refusal(parts: Parts, from: string, to: string, typesOnly: boolean): string | undefined {
  const ruler = ruledBy(parts, from);
  const spec: PartSpec = ruler ? parts[ruler]! : { path: "", about: "" };
  const listed = (names: string[] | undefined) => (names ?? []).some((name) => covers(name, to));
  if (!listed(spec.except) && (listed(spec.imports) || (typesOnly && listed(spec.types)))) return undefined;
  const rule = [
    `imports ${spec.imports?.join(", ") || "nothing"}`,
    ...(spec.types ? [`types of ${spec.types.join(", ")}`] : []),
    ...(spec.except ? [`except ${spec.except.join(", ")}`] : []),
  ].join("; ");
  const whose = ruler === from ? from : ruler ? `${from} (as ${ruler})` : from;
  return `${from} → ${to}${typesOnly ? " (types)" : ""} is not allowed: ${whose} ${rule}`;
}

/**
 * Every import of the repository's code that resolves to a file of it or to a built-in module (packages
 * and what does not resolve are left out). Types-only is told apart for the files under `typed`
 * (see typedPaths): there dpdm reads the imports again from the compiled JavaScript.
 */
export async function importArrows(typed: string[]): Promise<Arrow[]> {
  const everything = CODE_FOLDERS.map((folder) => `${folder}/${CODE_FILES}`);
  const tree = await parseDependencyTree(everything, { transform: false });
  const globs = typed.map((path) => (isPrefixPath(path) ? `${path}${CODE_FILES}` : path));
  const compiled = globs.length ? await parseDependencyTree(globs, { transform: true }) : {};
  const isTyped = (file: string) => typed.some((path) => holds(path, file));
  const arrows: Arrow[] = [];
  for (const [file, dependencies] of Object.entries(tree)) {
    if (!dependencies || !CODE_FOLDERS.some((folder) => file.startsWith(`${folder}/`))) continue;
    const values = isTyped(file) ? new Set(compiled[file]?.map((dependency) => dependency.id)) : undefined;
    for (const { id } of dependencies) {
      // Packages (wherever node_modules really is) and what does not resolve are outside the parts.
      if (id === null || id.includes("node_modules/")) continue;
      arrows.push({ file, imported: id, typesOnly: values !== undefined && !values.has(id) });
    }
  }
  return arrows;
}
