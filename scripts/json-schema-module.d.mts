// Types of scripts/json-schema-module.mjs (plain Node, so every build step can run it before anything is bundled).
export declare const JSON_SCHEMA_PACKAGE: string;
export declare const JSON_SCHEMA_MODULE: string;
export declare function writeJsonSchemaModule(root?: string): Promise<{ path: string; changed: boolean }>;
export declare function writePackageModule(
  root: string,
  options: { pkg: string; module: string; script: string },
): Promise<{ path: string; changed: boolean }>;
