// Types of scripts/remote-mcp-module.mjs (plain Node, so every build step can run it before anything is bundled).
export declare const REMOTE_MCP_ENTRY: string;
export declare const REMOTE_MCP_MODULE: string;
export declare function remoteMcpInputAllowed(input: string): boolean;
export declare function writeRemoteMcpModule(
  root?: string,
): Promise<{ path: string; changed: boolean; inputs: string[] }>;
