// Types of scripts/ts-entry.mjs, for the TypeScript that imports it (vitest.config.ts).
export declare const ROOT: string;
export declare function writeGeneratedModules(root?: string): Promise<void>;
