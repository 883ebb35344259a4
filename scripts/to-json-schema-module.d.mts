// Types of scripts/to-json-schema-module.mjs (plain Node, so every build step can run it before anything is bundled).
export declare const TO_JSON_SCHEMA_PACKAGE: string;
export declare const TO_JSON_SCHEMA_MODULE: string;
export declare function writeToJsonSchemaModule(root?: string): Promise<{ path: string; changed: boolean }>;
