import type { TenantConfigInput } from "../tenant/config";

/**
 * The embedded demo tenant `npm run dev` serves with no setup. Its keys are public (they are in the
 * README), so it is only used where the wrangler environment allows it (TOOLGATE_DEMO, set in the
 * top-level environment only; named tenant environments do not inherit vars).
 */
export const DEMO_KEYS = { admin: "dev-admin-key", call: "dev-call-key" } as const;

export const DEMO_CONFIG: TenantConfigInput = {
  name: "demo",
  // Every tool of tools/ tagged "demo" (a tool that needs secrets stays out until the demo maps them).
  tools: ["tag:demo"],
  keys: [
    // SHA-256 of "dev-admin-key" and "dev-call-key".
    { name: "dev-admin", hash: "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9", scopes: ["admin"] },
    { name: "dev-call", hash: "06311ac15f2412fb7144a9977924f7a6a137403f1201f5bd0588cc02cd08e33f", scopes: ["call"] },
  ],
  consoleOrigins: ["http://localhost:5173", "http://127.0.0.1:5173"],
};
