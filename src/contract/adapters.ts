/** One remote MCP tool as GET /v1/adapters shows it: its definition now and how pinning treats it. */
export interface RemoteToolInfo {
  tool: string;
  remoteName: string;
  hash: string;
  state: "approved" | "unapproved" | "changed" | "denied";
  /** Whether a call of it passes the pinning check now. */
  callable: boolean;
  /** The pin; `definition` is the approved one, given when the tool changed since (for a diff). */
  approved?: { hash: string; by: string; at: string; definition?: unknown };
  denied?: { hash: string; by: string; at: string };
  definition: unknown;
}

/** One MCP server: its declaration, its state and its tools as listed now. */
export interface McpServerInfo {
  name: string;
  url: string;
  upstream: string;
  prefix?: string;
  pinning: string;
  /** Set when the server could not be listed for this answer. */
  error?: string;
  status: {
    reachable: boolean;
    checkedAt: number;
    listedAt?: number;
    lastError?: { at: number; message: string };
    breaker: { failures: number; openUntil: number };
  };
  tools: RemoteToolInfo[];
}

/** GET /v1/adapters: the egress policy, each static kind's declarations, and the MCP servers. */
export interface AdaptersAnswer {
  egress: unknown;
  mcp: McpServerInfo[];
  [kind: string]: unknown;
}
