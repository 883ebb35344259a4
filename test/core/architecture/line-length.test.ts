import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

/**
 * No line of the repository's sources is longer than 120 characters (issue 28), the width Biome formats to.
 * The formatter cannot break comments or string literals: this test keeps them within it too.
 *
 * The rule, by place:
 * - src/, worker/, web/, tools/, scripts/ and every other source file: every line, no exception. A long
 *   message is split into literals joined with `+` at a phrase boundary (never inside an identifier or a
 *   key phrase), or a part of it is named first; the message stays the same string.
 * - test/ and bench/: every comment line; a code line may be longer only when it holds a test's or suite's
 *   title (`it`, `test`, `describe` and their modifiers), which the runner prints and one greps for whole,
 *   or, in bench/, when it is a line of report text (it starts with a string or template literal).
 *   Expected messages, patterns and fixtures are split or named like product code; a trailing comment that
 *   does not fit goes on its own line above its code.
 * - bench/authoring/: none checked. Its samples are written as each library's docs write them, and the
 *   authoring bench counts their lines (Biome leaves them unformatted too).
 */

const MAX = 120;
const SOURCES = ["*.ts", "*.mts", "*.mjs", "*.js", "*.css", "*.html"];
/** Written by tools, not by hand: the Worker's types (wrangler types) and the build's modules. */
const GENERATED = /(^|\/)worker-configuration\.d\.ts$|\.generated\./;
const UNCHECKED = /^bench\/authoring\//;

/** `it(`, `test.each(cases)(`, `describe.skipIf(x)(` … with the title's literal on the same line. */
const TITLE_CALL = /^\s*(?:it|test|describe)(?:\.\w+(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?)*\(\s*["'`]/;
const TITLE_CALLEE = /^\s*(?:it|test|describe)\b/;
/** `])(` or `)(`: the title of an `it.each([...])(` is on the line below. */
const CALL_OF_CALL = /\)\($/;
const COMMENT = /^\s*(?:\/\/|\/\*|\*)/;
const LITERAL_START = /^\s*["'`]/;

/** The repository's source files: tracked or new, git-ignored ones (build output) left out. */
function sourceFiles(): string[] {
  const args = ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", ...SOURCES];
  const listed = execFileSync("git", args, { encoding: "utf8" });
  return [...new Set(listed.split("\0"))].filter((file) => file && !GENERATED.test(file) && !UNCHECKED.test(file));
}

/** Whether a long line passes the rule for its place (see above). */
function allowed(file: string, lines: string[], index: number): boolean {
  const line = lines[index]!;
  const relaxed = file.startsWith("test/") || file.startsWith("bench/");
  if (!relaxed || COMMENT.test(line)) return false;
  if (TITLE_CALL.test(line)) return true;
  if (LITERAL_START.test(line) && TITLE_CALLEE.test(callOpening(lines, index))) return true;
  return file.startsWith("bench/") && LITERAL_START.test(line);
}

/** The line opening the call whose second argument list starts at line `index` (below a `)(` line), or "". */
function callOpening(lines: string[], index: number): string {
  const close = lines[index - 1] ?? "";
  if (!CALL_OF_CALL.test(close)) return "";
  const indent = close.length - close.trimStart().length;
  for (let i = index - 2; i >= 0; i--) {
    const line = lines[i]!;
    if (line.trim() && line.length - line.trimStart().length <= indent) return line;
  }
  return "";
}

it("keeps every source line within 120 characters (test titles and bench report lines aside)", () => {
  const files = sourceFiles();
  expect(files.filter((file) => file.startsWith("worker/")).length).toBeGreaterThan(50);
  const long = files.flatMap((file) => {
    const lines = readFileSync(file, "utf8").split("\n");
    return lines.flatMap((line, index) => {
      // Characters, as Biome counts them: "—" is one, not three bytes.
      const length = [...line].length;
      if (length <= MAX || allowed(file, lines, index)) return [];
      return [`${file}:${index + 1} (${length})`];
    });
  });
  expect(long).toEqual([]);
});

it("tells a title or a report line from other long lines", () => {
  const long = `"${"x".repeat(MAX)}"`;
  const check = (file: string, ...lines: string[]) => allowed(file, lines, lines.length - 1);
  expect(check("test/a.test.ts", `  it(${long}, async () => {`)).toBe(true);
  expect(check("test/a.test.ts", `describe.skipIf(!ok())(${long}, () => {`)).toBe(true);
  expect(check("test/a.test.ts", "it.each([", '  ["", "index.js"],', "])(", `  ${long},`)).toBe(true);
  expect(check("test/a.test.ts", "describe(() => {", "  run.each([", "  ])(", `    ${long},`)).toBe(false);
  expect(check("test/a.test.ts", `    expect(message).toBe(${long});`)).toBe(false);
  expect(check("test/a.test.ts", `      ${long},`)).toBe(false);
  expect(check("test/a.test.ts", `  // ${long}`)).toBe(false);
  expect(check("test/a.test.ts", `   * ${long}`)).toBe(false);
  expect(check("bench/a.ts", `    ${long},`)).toBe(true);
  expect(check("bench/a.ts", `  await run(); // ${long}`)).toBe(false);
  expect(check("bench/a.ts", `  // ${long}`)).toBe(false);
  expect(check("src/a.ts", `  it(${long}, async () => {`)).toBe(false);
  expect(check("worker/a.ts", `    ${long},`)).toBe(false);
});
