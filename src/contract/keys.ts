export interface WhoAmI {
  tenant: string;
  key: { name: string; scopes: ("call" | "admin")[] };
}

/** The rules a key or an OAuth grant may carry (GET/POST /v1/keys, the consent decision). */
export interface CallerRules {
  /** Only these tools; absent: every tool. */
  tools?: string[];
  /** Calls per minute, shared by every isolate. */
  ratePerMinute?: number;
  /** Milliseconds since the epoch. */
  expiresAt?: number;
}

/** A key of the bundled configuration (changes only with a deploy). */
export interface ConfiguredKey {
  source: "config";
  name: string;
  scopes: ("call" | "admin")[];
}

/** A key created at runtime; never its secret or hash. */
export interface RuntimeKey extends CallerRules {
  source: "runtime";
  id: string;
  name: string;
  scopes: ("call" | "admin")[];
  createdAt: number;
  lastUsedAt?: number;
  rotatedAt?: number;
  previousValidUntil?: number;
  revokedAt?: number;
}

export interface NewKeyInput extends CallerRules {
  name: string;
  scopes: ("call" | "admin")[];
}

/** The answer that carries a secret: shown once, never again. */
export interface KeySecret {
  key: RuntimeKey;
  secret: string;
}
