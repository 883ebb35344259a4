// Types of scripts/library-module.mjs (plain Node, so every build step can run it before anything is bundled).
export interface LibraryModuleSpec {
  entry: string;
  module: string;
  packages: string[];
  folders: string[];
  header: string;
  declaration: string;
}
export declare function inputAllowed(input: string, spec: Pick<LibraryModuleSpec, "folders" | "packages">): boolean;
export declare function writeLibraryModule(
  root: string,
  spec: LibraryModuleSpec,
): Promise<{ path: string; changed: boolean; inputs: string[] }>;
