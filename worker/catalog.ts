import type { Tool } from "../src/tool";
import { DEMO_TOOLS } from "./demo/tools";
import { GATE_FIXTURE_TOOLS } from "./gate-fixtures";
import { MCP_FIXTURE_TOOLS } from "./mcp/fixtures";

/** Every code tool this build ships; a tenant's config picks from these by name (fixtures only in test configs). */
export const CATALOG: ReadonlyMap<string, Tool> = new Map([...DEMO_TOOLS, ...MCP_FIXTURE_TOOLS, ...GATE_FIXTURE_TOOLS].map((tool) => [tool.name, tool as Tool]));
