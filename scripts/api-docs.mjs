// The API reference, docs/api/: TypeDoc over the package's entry points (packages/toolgate/typedoc.json),
// from the sources' JSDoc. With --check, writes it aside and fails when docs/api/ differs (CI).
// Usage: node scripts/api-docs.mjs [--check]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensurePackageTools, PACKAGE_DIR } from "./pack.mjs";
import { ROOT, useProjectNode } from "./ts-entry.mjs";

const DOCS = join(ROOT, "docs/api");

/** Every file under a folder, by relative path, with its text. */
function filesOf(dir) {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return new Map(
    files.map((entry) => {
      const path = join(entry.parentPath, entry.name);
      return [path.slice(dir.length + 1), readFileSync(path, "utf8")];
    }),
  );
}

function typedoc(out) {
  const bin = join(PACKAGE_DIR, "node_modules/typedoc/bin/typedoc");
  const result = spawnSync(process.execPath, [bin, "--out", out], { cwd: PACKAGE_DIR, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`typedoc failed (${result.error?.message ?? result.status})`);
}

await useProjectNode();
const { values } = parseArgs({ options: { check: { type: "boolean" } } });
try {
  ensurePackageTools();
  if (!values.check) {
    typedoc(DOCS);
    console.log("api-docs: wrote docs/api/");
  } else {
    const aside = mkdtempSync(join(tmpdir(), "toolgate-api-docs-"));
    try {
      typedoc(aside);
      const [written, committed] = [filesOf(aside), filesOf(DOCS)];
      const stale = [...new Set([...written.keys(), ...committed.keys()])].filter(
        (path) => written.get(path) !== committed.get(path),
      );
      if (stale.length > 0) throw new Error(`docs/api/ is not current (npm run docs:api): ${stale.join(", ")}`);
      console.log("api-docs: docs/api/ is current");
    } finally {
      rmSync(aside, { recursive: true, force: true });
    }
  }
} catch (error) {
  console.error(`api-docs: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
