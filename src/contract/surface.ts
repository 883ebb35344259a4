/** Where a call came in: the HTTP API, the MCP endpoint, or another Worker's service binding. */
export const CALL_SURFACES = ["http", "mcp", "binding"] as const;
export type CallSurface = (typeof CALL_SURFACES)[number];
