import type { CallerRules } from "./keys";
import type { CallUser } from "./users";

/** A pending OAuth authorization, as its consent page shows it (every string comes from the client). */
export interface ConsentDetails {
  consent: {
    clientId: string;
    clientName: string;
    /** Set for a client identified by its metadata document's URL: a domain the client controls. */
    clientDomain?: string;
    clientUri?: string;
    redirectUri: string;
    redirectHost: string;
    redirectIsLoopback: boolean;
    scope: string[];
  };
  /**
   * The MCP server the grant is for (RFC 8707 resource): `<origin>/mcp`, or a curated endpoint's
   * `<origin>/mcp/<name>` (`endpoint`), whose token reaches only that endpoint's tools.
   */
  server?: { resource?: string; endpoint?: string };
  /**
   * The tools the approver may hand on (the tenant's, or their role's; within the endpoint's), for the
   * grant's allow-list.
   */
  tools: string[];
  /** Who decides: a person for themselves (`user`), or an admin key; only admins may grant admin. */
  approver?: { user?: Pick<CallUser, "id" | "name">; admin: boolean };
}

export interface ConsentDecision extends CallerRules {
  decision: "approve" | "deny";
  scope?: "call" | "admin";
}

/** An OAuth grant, as its person or an admin lists it. */
export interface GrantInfo {
  id: string;
  clientId: string;
  scope: string[];
  createdAt: number;
  expiresAt?: number;
  redirectUri?: string;
  details?: { clientName?: string; approvedBy?: string } & CallerRules;
  /** Whose grant it is, as the OAuth library stores it: "tenant", or the person's user key (`u_…`). */
  owner?: string;
  /** The person who connected the client for themselves; null for a grant an admin key approved for the tenant. */
  user?: Pick<CallUser, "id" | "name"> | null;
}
