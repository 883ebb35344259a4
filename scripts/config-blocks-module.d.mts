// Types of scripts/config-blocks-module.mjs (plain Node, so every build step can run it before anything is bundled).
export declare const CONFIG_BLOCKS_ENTRY: string;
export declare const CONFIG_BLOCKS_MODULE: string;
export declare function configBlocksInputAllowed(input: string): boolean;
export declare function writeConfigBlocksModule(
  root?: string,
): Promise<{ path: string; changed: boolean; inputs: string[] }>;
