// Types of scripts/search-module.mjs (plain Node, so every build step can run it before anything is bundled).
export declare const SEARCH_ENTRY: string;
export declare const SEARCH_MODULE: string;
export declare function searchInputAllowed(input: string): boolean;
export declare function writeSearchModule(root?: string): Promise<{ path: string; changed: boolean; inputs: string[] }>;
