// Types of scripts/entry-module.mjs (plain Node, so every build step can run it before anything is bundled).
export declare function writeEntryModule(
  root: string,
  options: {
    entry: string;
    module: string;
    allowed: (input: string) => boolean;
    only: string;
    from: string;
    declaration: string;
    script: string;
    plugins?: unknown[];
  },
): Promise<{ path: string; changed: boolean; inputs: string[] }>;
export declare function runIfMain(url: string, name: string, write: () => Promise<unknown>): Promise<void>;
export declare function inputUnder(input: string, folders: string[], packages?: string[]): boolean;
