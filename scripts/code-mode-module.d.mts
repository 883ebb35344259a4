// Types of scripts/code-mode-module.mjs (plain Node, so every build step can run it before anything is bundled).
export declare const CODE_MODE_ENTRY: string;
export declare const CODE_MODE_MODULE: string;
export declare function codeModeInputAllowed(input: string): boolean;
export declare function writeCodeModeModule(
  root?: string,
): Promise<{ path: string; changed: boolean; inputs: string[] }>;
