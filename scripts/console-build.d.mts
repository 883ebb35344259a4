// Types of scripts/console-build.mjs (plain Node: wrangler's build command runs it before anything is bundled).
export declare const CONSOLE_DIR: string;
export declare const CONSOLE_HASH_FILE: string;
export declare function consoleSourceHash(root?: string): string;
export declare function consoleIsCurrent(root?: string): boolean;
export declare function buildConsole(root?: string, options?: { force?: boolean }): Promise<boolean>;
