// Types of scripts/tools-catalog.mjs (plain Node, so every build step can run it before anything is bundled).
export declare const TOOLS_DIR: string;
export declare const CATALOG_MODULE: string;
export declare function toolFiles(dir: string): string[];
export declare function renderToolCatalog(names: readonly string[]): string;
export declare function writeToolCatalog(root?: string): { names: string[]; path: string; changed: boolean };
