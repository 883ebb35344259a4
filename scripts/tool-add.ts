/**
 * npm run tool:add <name> [-- --root <dir>]
 * Scaffolds a code tool: tools/<name>.ts (the tool, one file) and test/core/tools/<name>.test.ts (its
 * test). Nothing else changes: every build derives the catalogue from tools/ (scripts/tools-catalog.mjs),
 * so the next `npm run dev`, `npm test` or deploy includes the tool. Refuses to overwrite.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { writeToolCatalog } from "./tools-catalog.mjs";
import { renderTool, renderToolTest, toolNameProblem, toolPath, toolTestPath } from "./tool-files";

function fail(message: string): never {
  console.error(`tool:add: ${message}`);
  process.exit(1);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { root: { type: "string", default: "." } },
});
const name = positionals[0];
if (!name || positionals.length > 1) fail("usage: npm run tool:add <name>");
const problem = toolNameProblem(name);
if (problem) fail(problem);

const root = resolve(values.root!);
const files: [path: string, text: string][] = [
  [toolPath(name), renderTool(name)],
  [toolTestPath(name), renderToolTest(name)],
];
for (const [path] of files) if (existsSync(join(root, path))) fail(`${path} already exists`);
for (const [path, text] of files) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text, { flag: "wx" });
}
// Formatted as the project formats (a long name can push a line past the width); skipped where Biome is absent.
const biome = join(root, "node_modules/@biomejs/biome/bin/biome");
if (existsSync(biome)) {
  spawnSync(process.execPath, [biome, "format", "--write", ...files.map(([path]) => path)], {
    cwd: root,
    stdio: "ignore",
  });
}
// Builds write the catalogue anyway; writing it now lets the editor and tsc see the tool at once.
writeToolCatalog(root);

console.log(`Wrote ${files.map(([path]) => path).join(" and ")}.

Next:
  1. Write the tool: its description, input and output schemas, policy, run(). It reads secrets and
     fetches origins? Declare them in needs: a tenant that offers it must map each secret.
  2. npm test                       (runs its test; the build now includes it)
  3. npm run dev                    (the demo tenant offers it through its "demo" tag)
  4. Offer it in a tenant: "tools": ["${name}"] in tenants/<tenant>.json (or a tag, or "*")`);
