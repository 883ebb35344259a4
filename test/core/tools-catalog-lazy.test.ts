import { build } from "esbuild";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { writeToolCatalog } from "../../scripts/tools-catalog.mjs";
import { defineTool } from "../../src";
import { catalogFromModules } from "../../worker/catalog";

const scratch = resolve(".tmp", `tools-catalog-lazy-${crypto.randomUUID().slice(0, 8)}`);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Where the fixture tool records that its module's top level ran. */
const EVALUATED = "__toolgateLazyCatalogEvaluated";

// A tool file as authors write it, plus a top-level side effect the test can observe.
const MARKED_TOOL = `import * as v from "valibot";
import { defineTool } from ${JSON.stringify(resolve("src"))};

((globalThis as Record<string, unknown>).${EVALUATED} as string[]).push("marked");

export default defineTool({ name: "marked", description: "Marks its module's evaluation.", input: v.object({}), run: () => "ok" });
`;

// The entry imports the generated catalogue and the loader as worker/catalog.ts does, and records what ran at import.
const ENTRY = `import { TOOL_FILES } from "./worker/catalog.generated";
import { catalogFromModules, loadOnce } from ${JSON.stringify(resolve("worker/catalog"))};

export const evaluatedAtImport = [...(globalThis as Record<string, string[]>).${EVALUATED}];
export const load = loadOnce(() => catalogFromModules(TOOL_FILES));
`;

describe("the catalogue of tools/, loaded on first use", () => {
  it("bundles each tool's module so that it runs at the catalogue's first load, once, not at the Worker's startup", async () => {
    mkdirSync(join(scratch, "tools"), { recursive: true });
    mkdirSync(join(scratch, "worker"), { recursive: true });
    writeFileSync(join(scratch, "tools", "marked.ts"), MARKED_TOOL);
    writeToolCatalog(scratch);
    writeFileSync(join(scratch, "entry.ts"), ENTRY);
    // Bundled as wrangler bundles the Worker: one ESM file (esbuild).
    const out = join(scratch, "bundle.mjs");
    const result = await build({
      entryPoints: [join(scratch, "entry.ts")],
      bundle: true,
      platform: "neutral",
      conditions: ["workerd", "worker", "browser"],
      mainFields: ["module", "main"],
      format: "esm",
      outfile: out,
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);

    const evaluated: string[] = [];
    (globalThis as Record<string, unknown>)[EVALUATED] = evaluated;
    try {
      const bundle = (await import(pathToFileURL(out).href)) as { evaluatedAtImport: string[]; load: () => Promise<ReadonlyMap<string, unknown>> };
      expect(bundle.evaluatedAtImport).toEqual([]);
      expect(evaluated).toEqual([]);
      const [first, second] = await Promise.all([bundle.load(), bundle.load()]);
      expect([...first.keys()]).toEqual(["marked"]);
      expect(second).toBe(first);
      expect(evaluated).toEqual(["marked"]);
    } finally {
      delete (globalThis as Record<string, unknown>)[EVALUATED];
    }
  }, 30_000);

  it("checks at the first load that each file exports the tool it is named after", async () => {
    const add = defineTool({ name: "add", description: "Adds.", run: () => 0 });
    await expect(catalogFromModules([["sum", async () => ({ default: add })]])).rejects.toThrow('tools/sum.ts default-exports the tool "add": a tool file is named after its tool');
    await expect(catalogFromModules([["sum", async () => ({}) as { default: typeof add }]])).rejects.toThrow(
      "tools/sum.ts default-exports no tool (export default defineTool({ … })): a tool file is named after its tool",
    );
  });
});
