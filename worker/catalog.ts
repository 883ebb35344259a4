import type { Tool } from "../src/tool";
import { DEMO_TOOLS } from "./demo/tools";

/** Code tools by name: a tenant's configuration picks from these ("tools"). */
export type Catalog = ReadonlyMap<string, Tool>;

/** A catalogue of these tools; a later tool of the same name wins. */
export function createCatalog(...groups: readonly (readonly Tool[])[]): Catalog {
  return new Map(groups.flat().map((tool) => [tool.name, tool]));
}

/** Every code tool this build ships (test-only tools are added by test/fixtures/catalog.ts). */
export const CATALOG: Catalog = createCatalog(DEMO_TOOLS);
