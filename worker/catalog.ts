import type { Tool } from "../src/tool";
import { DEMO_TOOLS } from "./demo/tools";

/** Every code tool this build ships; a tenant's config picks from these by name. */
export const CATALOG: ReadonlyMap<string, Tool> = new Map(DEMO_TOOLS.map((tool) => [tool.name, tool as Tool]));
