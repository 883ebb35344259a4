// Types of scripts/endpoints-module.mjs (plain Node, so every build step can run it before anything is bundled).
export declare const ENDPOINTS_ENTRY: string;
export declare const ENDPOINTS_MODULE: string;
export declare function endpointsInputAllowed(input: string): boolean;
export declare function writeEndpointsModule(
  root?: string,
): Promise<{ path: string; changed: boolean; inputs: string[] }>;
