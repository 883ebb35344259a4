// Types of scripts/telemetry-module.mjs (plain Node, so every build step can run it before anything is bundled).
export declare const TELEMETRY_ENTRY: string;
export declare const TELEMETRY_MODULE: string;
export declare function telemetryInputAllowed(input: string): boolean;
export declare function writeTelemetryModule(
  root?: string,
): Promise<{ path: string; changed: boolean; inputs: string[] }>;
