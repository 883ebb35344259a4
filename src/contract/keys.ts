import type { UserRef } from "./users";

/** GET /v1/whoami: who the request authenticated as, with its effective scopes. */
export interface WhoAmI {
  tenant: string;
  /** The credential: a key's name (or `oauth:<client>#<grant>`), and its scopes as narrowed for the user. */
  key: { name: string; scopes: ("call" | "admin")[] };
  /** The user the request acts for (a key acting for one, a person's grant or sign-in), with their roles. */
  user?: UserRef & { roles: string[] };
}

/**
 * What a key may send to act for its app's users: "token" a signed user token (`Toolgate-User-Token`)
 * only; "header" that, or a plain user id (`Toolgate-User`). Absent: neither (such requests are refused).
 */
export type ActAs = "token" | "header";

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
  actAs?: ActAs;
}

/** A key created at runtime; never its secret or hash. */
export interface RuntimeKey extends CallerRules {
  source: "runtime";
  id: string;
  name: string;
  scopes: ("call" | "admin")[];
  actAs?: ActAs;
  createdAt: number;
  lastUsedAt?: number;
  rotatedAt?: number;
  previousValidUntil?: number;
  revokedAt?: number;
}

export interface NewKeyInput extends CallerRules {
  name: string;
  scopes: ("call" | "admin")[];
  actAs?: ActAs;
}

/** The answer that carries a secret: shown once, never again. */
export interface KeySecret {
  key: RuntimeKey;
  secret: string;
}
