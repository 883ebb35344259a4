import type { Tool } from "../../src/tool";
import { BUILD_FAILURE, TOOL_FILES } from "./catalog.generated";
// The JSON Schemas the build derived for these tools (tool-schemas.ts), beside them in the bundle, where
// gzip finds their descriptions again.
export { TOOL_SCHEMAS } from "./tool-schemas.generated";

export { BUILD_FAILURE };

/** Code tools by name: a tenant's configuration picks from these ("tools": names, "tag:<tag>" or "*"). */
export type Catalog = ReadonlyMap<string, Tool>;

/** A catalogue of these tools; a later tool of the same name wins. */
export function createCatalog(...groups: readonly (readonly Tool[])[]): Catalog {
  return new Map(groups.flat().map((tool) => [tool.name, tool]));
}

/** A file of tools/ that is not the tool it is named after (the build names the file). */
export class ToolFileError extends TypeError {
  override name = "ToolFileError";
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

/** The tools of tools/ files; each file must export the tool it is named after. */
export function catalogFromFiles(files: readonly (readonly [file: string, tool: Tool])[]): Catalog {
  for (const [file, tool] of files) {
    if (tool?.name !== file) {
      const found =
        typeof tool?.name === "string" ? `the tool "${tool.name}"` : "no tool (export default defineTool({ … }))";
      throw new ToolFileError(
        `tools/${file}.ts`,
        `tools/${file}.ts default-exports ${found}: a tool file is named after its tool`,
      );
    }
  }
  return createCatalog(files.map(([, tool]) => tool));
}

/**
 * Every code tool this build ships: one per file of tools/ (worker/catalog.generated.ts is written
 * from that folder before every build). Test-only tools are added by test/fixtures/catalog.ts.
 */
export const CATALOG: Catalog = /* @__PURE__ */ catalogFromFiles(TOOL_FILES);
