import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unstable_readConfig } from "wrangler";
import { afterAll, describe, expect, it } from "vitest";
import { CATALOG_MODULE, renderToolCatalog, toolFiles, writeToolCatalog } from "../../../scripts/tools-catalog.mjs";
import { openai } from "../../../src/formats";
import { CATALOG } from "../../../worker/tenant/catalog";
import { toolListingJson } from "../../../worker/tenant/listings/listing";
import { listingsKey, PRECOMPUTED_LAYOUT } from "../../../worker/tenant/listings/key";
import { createTenant } from "../../../worker/tenant/tenant";

const scratch = join(".tmp", `tools-catalog-${crypto.randomUUID().slice(0, 8)}`);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An empty checkout-like folder: tools/ and worker/. */
function folder(name: string): string {
  const root = join(scratch, name);
  mkdirSync(join(root, "tools", "lib"), { recursive: true });
  mkdirSync(join(root, "worker"), { recursive: true });
  return root;
}

describe("the catalogue of tools/", () => {
  it("is every file of tools/, each exporting the tool it is named after", () => {
    expect([...CATALOG.keys()]).toEqual(toolFiles("tools"));
    expect(readFileSync(CATALOG_MODULE, "utf8")).toBe(renderToolCatalog(toolFiles("tools")));
  });

  it("takes in a file dropped into tools/ at the next write, and writes only when it changed", () => {
    const root = folder("drop");
    expect(writeToolCatalog(root)).toMatchObject({ names: [], changed: true });
    writeFileSync(join(root, "tools", "b-tool.ts"), "");
    writeFileSync(join(root, "tools", "a_tool.ts"), "");
    writeFileSync(join(root, "tools", "README.md"), "not a tool");
    writeFileSync(join(root, "tools", "lib", "shared.ts"), "not a tool either");
    expect(writeToolCatalog(root)).toMatchObject({ names: ["a_tool", "b-tool"], changed: true });
    const text = readFileSync(join(root, CATALOG_MODULE), "utf8");
    expect(text).toContain(`import tool0 from "../../tools/a_tool";\nimport tool1 from "../../tools/b-tool";\n`);
    expect(text).toContain(`  ["a_tool", tool0],\n  ["b-tool", tool1],\n`);
    expect(writeToolCatalog(root).changed).toBe(false);
  });

  it("refuses a .ts file whose name cannot be a tool's", () => {
    const root = folder("bad");
    writeFileSync(join(root, "tools", "my tool.ts"), "");
    expect(() => writeToolCatalog(root)).toThrow(
      "tools/my tool.ts: every .ts file in tools/ is one tool, " +
        "named after its file (letters, digits, _ and -, at most 64); shared code goes in tools/lib/",
    );
  });
});

describe("the build step (wrangler's [build] command)", () => {
  it("runs before every wrangler dev and deploy, tenant environments included", () => {
    for (const env of [undefined, "acme"]) {
      const config = unstable_readConfig({ config: "wrangler.toml", ...(env ? { env } : {}) });
      expect(config.build.command).toBe("node scripts/build.mjs");
    }
  });

  // The build step runs in a child process: seconds on a loaded machine.
  const SPAWN_MS = 30_000;
  const check = (tenants: string) =>
    spawnSync(process.execPath, ["scripts/build.mjs", "--tenants", tenants], { encoding: "utf8" });

  it(
    "passes the checkout's tenants and names the tools it found",
    () => {
      const run = check("tenants");
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(run.stdout).toContain(
        `tools: ${[...CATALOG.keys()].join(", ")}; tenants checked: worker/demo/tenant.ts, tenants/acme.json`,
      );
    },
    SPAWN_MS,
  );

  it(
    "stops with the tenant's configuration error",
    () => {
      const dir = join(scratch, "tenants");
      mkdirSync(dir, { recursive: true });
      const keys = [{ name: "admin", hash: "a".repeat(64), scopes: ["admin"] }];
      writeFileSync(join(dir, "bad.json"), JSON.stringify({ name: "bad", tools: ["add", "tag:nope"], keys }));
      const run = check(dir);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`build: ${join(dir, "bad.json")} is invalid: tools[1]: no tool has the tag "nope"`);
      expect(existsSync(join(dir, "bad.listings.generated.txt"))).toBe(false);
    },
    SPAWN_MS,
  );

  it(
    "writes each tenant's listings, keyed by its configuration and this build",
    async () => {
      const dir = join(scratch, "listed");
      mkdirSync(dir, { recursive: true });
      const config = {
        name: "listed",
        tools: ["add", "echo"],
        keys: [{ name: "admin", hash: "a".repeat(64), scopes: ["admin"] }],
      };
      writeFileSync(join(dir, "listed.json"), JSON.stringify(config, null, 2));
      const run = check(dir);
      expect(run.stderr).toBe("");
      const text = readFileSync(join(dir, "listed.listings.generated.txt"), "utf8");
      const header = JSON.parse(text.slice(0, text.indexOf("\n")));
      expect(header).toMatchObject({
        layout: PRECOMPUTED_LAYOUT,
        key: await listingsKey(config, createTenant(config), CATALOG),
        count: 2,
      });
      // The whole OpenAI listing, as the Worker builds it.
      const tenant = createTenant(config);
      const body = text.slice(text.indexOf("\n") + 1);
      expect(body.slice(header.sections.openai.at, header.sections.openai.at + header.sections.openai.length)).toBe(
        toolListingJson(tenant, openai),
      );
    },
    SPAWN_MS,
  );
});
