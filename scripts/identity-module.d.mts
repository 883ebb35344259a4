// Types of scripts/identity-module.mjs (plain Node, so every build step can run it before anything is bundled).
export declare const IDENTITY_PACKAGES: string[];
export declare const IDENTITY_ENTRY: string;
export declare const IDENTITY_MODULE: string;
export declare function identityInputAllowed(input: string): boolean;
export declare function writeIdentityModule(
  root?: string,
): Promise<{ path: string; changed: boolean; inputs: string[] }>;
