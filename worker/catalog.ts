import type { Tool } from "../src/tool";
import { TOOL_FILES, type ToolFile } from "./catalog.generated";

/** Code tools by name: a tenant's configuration picks from these ("tools": names, "tag:<tag>" or "*"). */
export type Catalog = ReadonlyMap<string, Tool>;

/** A catalogue loaded on first use, once per isolate: its tool modules are evaluated then, not at startup. */
export type CatalogLoader = () => Promise<Catalog>;

/** A catalogue of these tools; a later tool of the same name wins. */
export function createCatalog(...groups: readonly (readonly Tool[])[]): Catalog {
  return new Map(groups.flat().map((tool) => [tool.name, tool]));
}

/** The tools of tools/ files; each file must export the tool it is named after. */
export function catalogFromFiles(files: readonly (readonly [file: string, tool: Tool])[]): Catalog {
  for (const [file, tool] of files) {
    if (tool?.name !== file) {
      const found = typeof tool?.name === "string" ? `the tool "${tool.name}"` : "no tool (export default defineTool({ … }))";
      throw new TypeError(`tools/${file}.ts default-exports ${found}: a tool file is named after its tool`);
    }
  }
  return createCatalog(files.map(([, tool]) => tool));
}

/** Imports every file's module (its top level runs now), then checks each exports the tool it is named after. */
export async function catalogFromModules(files: readonly ToolFile[]): Promise<Catalog> {
  const tools = await Promise.all(files.map(async ([file, load]) => [file, (await load()).default] as const));
  return catalogFromFiles(tools);
}

/** One load per isolate: the first caller starts it, later ones share its promise (a failed load fails them all alike). */
export function loadOnce(load: () => Promise<Catalog>): CatalogLoader {
  let loading: Promise<Catalog> | undefined;
  return () => (loading ??= load());
}

/**
 * Every code tool this build ships: one per file of tools/ (worker/catalog.generated.ts is written
 * from that folder before every build and imports each file dynamically, so no tool module is
 * evaluated at the Worker's startup). Test-only tools are added by test/fixtures/catalog.ts.
 */
export const loadCatalog: CatalogLoader = loadOnce(async () => (loaded = await catalogFromModules(TOOL_FILES)));
let loaded: Catalog | undefined;

/**
 * This build's catalogue once loadCatalog() has resolved: the default of worker/tenant.ts's functions
 * for scripts and tests, which await loadCatalog() first (the Worker passes its catalogue explicitly).
 */
export function loadedCatalog(): Catalog {
  if (!loaded) throw new Error("The code tools' catalogue is not loaded yet: await loadCatalog() (worker/catalog.ts) first.");
  return loaded;
}
