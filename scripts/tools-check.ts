/**
 * The check wrangler's [build] command (scripts/build.mjs) runs before every `wrangler dev` and
 * `wrangler deploy`, after it wrote the catalogue of tools/. Loads every tool (each file must export
 * the tool it is named after), then builds the demo tenant and every tenants/*.json with the checks the
 * Worker runs on its first request, so an unknown tool or tag, or a secret a tool needs that the
 * tenant does not map, stops the build with the tenant's error instead of answering config_invalid at
 * the first call. Then writes each tenants/<name>.json's listings, precomputed
 * (tenants/<name>.listings.generated.txt, see worker/tenant/listings/precomputed.ts), which its Worker serves
 * instead of building them when their key still matches.
 */
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import type { ToolSchemas } from "../src/tool";
import type { Catalog } from "../worker/tenant/catalog";
import { listingsFile, TENANTS_DIR } from "./tenant-files";
import { TOOL_SCHEMAS_MODULE } from "./tools-catalog.mjs";

/** One thing the build found wrong, and the repository-relative file it is in when that is known. */
export interface BuildProblem {
  message: string;
  file?: string;
}

export type CheckResult = { ok: true; summary: string } | { ok: false; problems: BuildProblem[] };

// Run from the checkout (scripts/build.mjs): a bundle's import.meta.url is its own, in .tmp/.
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
const fromRoot = (path: string) =>
  relative(process.cwd(), isAbsolute(path) ? path : join(process.cwd(), path))
    .split(sep)
    .join("/");

/**
 * The file of tools/ a load error came from: the one it names (a file not named after its tool), or
 * the first frame of tools/ in its stack (a tool that throws while it is defined; with source maps
 * on before the bundle loads, its inline source map names the sources).
 */
function toolFileOf(error: unknown): string | undefined {
  if (error instanceof Error && "file" in error && typeof error.file === "string") return error.file;
  const stack = error instanceof Error ? (error.stack ?? "") : "";
  for (const match of stack.matchAll(/(?:file:\/\/)?(\/[^\s():]+\.ts):\d+:\d+/g)) {
    const file = fromRoot(match[1]!);
    if (file.startsWith("tools/")) return file;
  }
  return undefined;
}

/** Written only when the text changes (wrangler dev watches tenants/), through a rename (builds may run at once). */
function writeIfChanged(path: string, text: string): void {
  if (existsSync(path) && readFileSync(path, "utf8") === text) return;
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

/**
 * Each code tool's JSON Schemas, derived here so the Worker need not load the converter for them
 * (worker/tenant/tool-schemas.ts). A tool whose schema has no JSON Schema form is left out: the
 * tenant check names it, and the Worker fails on it as without a build.
 */
function derivedSchemas(catalog: Catalog): Record<string, ToolSchemas> {
  const schemas: Record<string, ToolSchemas> = {};
  for (const [name, tool] of catalog) {
    if (tool.source !== "valibot") continue;
    try {
      schemas[name] = tool.outputSchema
        ? { input: tool.inputSchema, output: tool.outputSchema }
        : { input: tool.inputSchema };
    } catch {
      // Left to the Worker, which derives it on first use and fails there as it would without a build.
    }
  }
  return schemas;
}

const loadModules = () =>
  Promise.all([
    import("../worker/tenant/catalog"),
    import("../worker/demo/tenant"),
    import("../worker/tenant/tenant"),
    import("../worker/tenant/listings/key"),
    import("../worker/tenant/listings/precompute"),
    import("../worker/tenant/tool-schemas"),
    import("../worker/source-hash.generated"),
    // The configurations' optional blocks (identity, search …) are checked by their module, loaded first.
    import("../worker/config-blocks-library").then((blocks) => blocks.loadConfigBlocks()),
    // A tenant with codeMode: its code tool's description is built by the library (readyTenant loads it in the Worker).
    import("../worker/code-mode-library").then(({ codeModeLibrary }) => codeModeLibrary()),
    import("../worker/endpoints/view"),
  ]);

/** Loads the tools and checks the demo tenant and every tenant configuration in `dir`. */
export async function checkTools(dir = TENANTS_DIR): Promise<CheckResult> {
  // Imported here, not at the top: a tool that throws while it is defined is a problem, not a crash.
  let loaded: Awaited<ReturnType<typeof loadModules>>;
  try {
    loaded = await loadModules();
  } catch (error) {
    const file = toolFileOf(error);
    return { ok: false, problems: [{ message: messageOf(error), ...(file ? { file } : {}) }] };
  }
  const [
    { CATALOG },
    { DEMO_CONFIG },
    { checkTenant },
    { listingsKey },
    { precomputeListings },
    schemas,
    hash,
    ,
    ,
    endpoints,
  ] = loaded;
  writeIfChanged(TOOL_SCHEMAS_MODULE, schemas.renderToolSchemas(derivedSchemas(CATALOG), hash.SOURCE_HASH));

  /** Where a bundled tenant's precomputed listings go (none for the demo, which is not bundled). */
  type Listings = string | undefined;
  const tenants: [source: string, config: () => unknown, listings: Listings][] = [
    ["worker/demo/tenant.ts", () => DEMO_CONFIG, undefined],
  ];
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort()) {
    const path = join(dir, file);
    tenants.push([path, () => readFileSync(path, "utf8"), join(dir, listingsFile(file.slice(0, -".json".length)))]);
  }

  const problems: BuildProblem[] = [];
  for (const [source, config, listings] of tenants) {
    try {
      // Every tool built: the Worker builds declared tools on first use, so this is where a bad one stops a deploy.
      const text = config();
      const tenant = checkTenant(text, source);
      // Its curated endpoints' selections, which the Worker makes on an endpoint's first request.
      await endpoints.checkEndpointViews(tenant).catch((error) => {
        throw error instanceof Error ? new Error(`${source} is invalid: ${error.message}`) : error;
      });
      // Keyed as the Worker keys it: the configuration as its bundle imports it (parsed JSON).
      if (listings)
        writeIfChanged(
          listings,
          precomputeListings(tenant, await listingsKey(JSON.parse(text as string), tenant, CATALOG)),
        );
    } catch (error) {
      problems.push({ message: messageOf(error), file: fromRoot(source) });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const checked = tenants.map(([source]) => source).join(", ");
  return { ok: true, summary: `tools: ${[...CATALOG.keys()].join(", ")}; tenants checked: ${checked}` };
}
