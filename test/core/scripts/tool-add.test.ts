import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CATALOG_MODULE } from "../../../scripts/tools-catalog.mjs";
import { renderTool, renderToolTest, toolPath, toolTestPath } from "../../../scripts/tool-files";

// A scratch checkout under .tmp/ (packages resolve from the repository's node_modules), the core linked in.
const root = join(".tmp", `tool-add-${crypto.randomUUID().slice(0, 8)}`);
mkdirSync(join(root, "tools"), { recursive: true });
mkdirSync(join(root, "worker"), { recursive: true });
symlinkSync(resolve("src"), join(root, "src"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Each test runs the script, or vitest, in a child process: seconds on a loaded machine.
const SPAWNS_MS = 60_000;

const toolAdd = (...args: string[]) =>
  spawnSync(process.execPath, ["scripts/run-ts.mjs", "scripts/tool-add.ts", ...args, "--root", root], {
    encoding: "utf8",
  });

describe("npm run tool:add", () => {
  it(
    "writes the tool and its test, and the catalogue takes the tool in",
    () => {
      const run = toolAdd("lookup_order");
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^Wrote tools\/lookup_order\.ts and test\/core\/tools\/lookup_order\.test\.ts\./);
      expect(readFileSync(join(root, toolPath("lookup_order")), "utf8")).toBe(renderTool("lookup_order"));
      expect(readFileSync(join(root, toolTestPath("lookup_order")), "utf8")).toBe(renderToolTest("lookup_order"));
      expect(readFileSync(join(root, CATALOG_MODULE), "utf8")).toContain(`["lookup_order", tool0]`);
    },
    SPAWNS_MS,
  );

  it(
    "scaffolds a test that passes against the scaffolded tool",
    () => {
      const vitest = resolve("node_modules/vitest/vitest.mjs");
      const run = spawnSync(process.execPath, [vitest, "run", toolTestPath("lookup_order")], {
        cwd: root,
        encoding: "utf8",
      });
      expect(run.status, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toMatch(/Tests\s+.*2 passed/);
    },
    SPAWNS_MS,
  );

  it(
    "refuses to overwrite, and refuses a name that cannot be a tool's",
    () => {
      writeFileSync(join(root, toolPath("lookup_order")), "// edited");
      const again = toolAdd("lookup_order");
      expect(again.status).toBe(1);
      expect(again.stderr).toBe("tool:add: tools/lookup_order.ts already exists\n");
      expect(readFileSync(join(root, toolPath("lookup_order")), "utf8")).toBe("// edited");
      for (const [name, message] of [
        ["bad name", /"bad name" is not a tool name: letters, digits, _ and -, at most 64/],
        ["x".repeat(65), /is not a tool name/],
        ["lib", /"lib" is taken: tools\/lib\/ holds the code tools share/],
      ] as const) {
        const run = toolAdd(name);
        expect(run.status).toBe(1);
        expect(run.stderr).toMatch(message);
        expect(existsSync(join(root, toolPath(name)))).toBe(false);
      }
    },
    SPAWNS_MS,
  );
});
