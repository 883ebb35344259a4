import type { Scope } from "../identity/lazy/types";

/** What a key, grant or role may do: "call" tools and read its own calls; "admin" everything. */
export const SCOPES = ["call", "admin"] as const satisfies readonly Scope[];
export type { Scope } from "../identity/lazy/types";
