/**
 * The remote MCP client (src/adapters/mcp/): a module apart from the Worker
 * (scripts/remote-mcp-module.mjs → worker/remote-mcp/library.generated.mjs), loaded by readyTenant for
 * tenants with `mcp` servers only. Its JSON Schema validator is the Worker's own module, imported, not copied.
 */
export { mcpServer } from "../../../src/adapters/mcp";
