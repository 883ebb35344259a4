// Types of scripts/oauth-module.mjs (plain Node, so every build step can run it before anything is bundled).
export declare const OAUTH_PACKAGE: string;
export declare const OAUTH_MODULE: string;
export declare function writeOAuthModule(root?: string): Promise<{ path: string; changed: boolean }>;
export declare function writeIfChanged(path: string, text: string): boolean;
