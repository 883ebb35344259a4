// Types of scripts/tools-catalog.mjs (plain Node, so every build step can run it before anything is bundled).
import type { BuildFailure } from "../worker/tenant/build-failure";

export declare const TOOLS_DIR: string;
export declare const CATALOG_MODULE: string;
export declare const TOOL_SCHEMAS_MODULE: string;
export declare function toolFiles(dir: string): string[];
export declare function renderToolCatalog(names: readonly string[], failure?: BuildFailure): string;
export declare function writeToolCatalog(root?: string): { names: string[]; path: string; changed: boolean };
export declare function writeFailedCatalog(root: string, failure: BuildFailure): void;
