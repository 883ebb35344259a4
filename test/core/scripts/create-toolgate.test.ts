import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// npm create toolgate's command (packages/create-toolgate/index.mjs), run as npm runs it, in a temporary folder.
const COMMAND = join(import.meta.dirname, "../../../packages/create-toolgate/index.mjs");

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), "create-toolgate-"));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const create = (...args: string[]) => spawnSync(process.execPath, [COMMAND, ...args], { cwd, encoding: "utf8" });

describe("create-toolgate", () => {
  it("writes the project, named after its folder, and prints the admin key whose hash the tenant holds", () => {
    const result = create("my-tools");
    expect(result.status, result.stderr).toBe(0);
    const key = /\btg_[A-Za-z0-9_-]{43}\b/.exec(result.stdout)?.[0] ?? "";
    const dir = join(cwd, "my-tools");
    const tenant = JSON.parse(readFileSync(join(dir, "tenants/main.json"), "utf8"));
    expect(tenant).toMatchObject({ name: "my-tools", tools: ["*"] });
    expect(tenant.keys).toEqual([
      { name: "admin", hash: createHash("sha256").update(key).digest("hex"), scopes: ["admin"] },
    ]);
    // The key itself is written nowhere.
    const written = readdirSync(dir, { recursive: true, encoding: "utf8" });
    expect(written).toContain(".gitignore");
    for (const file of written.filter((path) => path.includes("."))) {
      expect(readFileSync(join(dir, file), "utf8"), file).not.toContain(key);
    }
    expect(readFileSync(join(dir, "wrangler.toml"), "utf8")).toMatch(/^name = "my-tools"$/m);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(manifest.dependencies.toolgate).toMatch(/^\^\d+\.\d+\.\d+$/);
  });

  it("refuses a folder name that cannot name a Worker, and a folder that is not empty, writing nothing", () => {
    const badName = create("My_Tools");
    expect(badName.status).toBe(1);
    expect(badName.stderr).toMatch(/"My_Tools" cannot name a Worker: lowercase letters, digits and -/);
    mkdirSync(join(cwd, "taken"));
    writeFileSync(join(cwd, "taken/notes.txt"), "mine");
    const notEmpty = create("taken");
    expect(notEmpty.status).toBe(1);
    expect(notEmpty.stderr).toMatch(/taken exists and is not empty/);
    expect(readdirSync(cwd).sort()).toEqual(["taken"]);
    expect(readdirSync(join(cwd, "taken"))).toEqual(["notes.txt"]);
  });

  it("shows its usage without a folder", () => {
    const result = create();
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^Usage: npm create toolgate <folder>/);
  });
});
