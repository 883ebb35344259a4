/**
 * The remote MCP client (src/adapters/mcp/): a module apart from the Worker
 * (scripts/remote-mcp-module.mjs → worker/remote-mcp/library.generated.mjs), loaded by readyTenant for
 * tenants with `mcp` servers only. Its JSON Schema validator is the Worker's, handed over (./validator.ts).
 */
export { mcpServer } from "../../../src/adapters/mcp";
export { useValidator } from "./validator";
