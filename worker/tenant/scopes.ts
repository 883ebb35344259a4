/** What a key, grant or role may do: "call" tools and read its own calls; "admin" everything. */
export const SCOPES = ["call", "admin"] as const;
export type Scope = (typeof SCOPES)[number];
