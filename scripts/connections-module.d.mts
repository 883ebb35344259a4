// Types of scripts/connections-module.mjs (plain Node, so every build step can run it before anything is bundled).
export declare const CONNECTIONS_PACKAGES: string[];
export declare const CONNECTIONS_ENTRY: string;
export declare const CONNECTIONS_MODULE: string;
export declare function connectionsInputAllowed(input: string): boolean;
export declare function writeConnectionsModule(
  root?: string,
): Promise<{ path: string; changed: boolean; inputs: string[] }>;
