// Types of scripts/library-module.mjs (plain Node, so every build step can run it before anything is bundled).
export declare function libraryInputAllowed(input: string, folder: string, packages: string[]): boolean;
export declare function writeLibraryModule(options: {
  root: string;
  entry: string;
  module: string;
  packages: string[];
  script: string;
}): Promise<{ path: string; changed: boolean; inputs: string[] }>;
