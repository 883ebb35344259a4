/** One connection the tenant declares, as GET /v1/connections shows it to a person: never a token. */
export interface ConnectionState {
  name: string;
  title: string;
  /** Where the person connects (a page of toolgate's, in their browser, signed in). */
  connectUrl: string;
  /** Whether the caller's user holds it; the rest is set only then. */
  connected: boolean;
  scopes?: string[];
  connectedAt?: number;
  /** The last call that used it (ms since the epoch); null: none yet. */
  usedAt?: number | null;
  /** Its refresh was refused: the person must connect again. */
  needsUser?: boolean;
}

/** GET /v1/connections: the caller's user's connections; for admins, how many people hold each. */
export interface ConnectionsAnswer {
  /** Absent for a caller acting for no user (an admin key). */
  connections?: ConnectionState[];
  /** Admins only: people holding each connection, by name. */
  counts?: Record<string, number>;
}

/** DELETE /v1/connections/:name: the tokens are gone; what the provider's revocation came to. */
export interface DisconnectAnswer {
  disconnected: string;
  revoked: "revoked" | "not_offered" | "unreadable" | "failed";
  detail?: string;
}
