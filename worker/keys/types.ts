import type { CodeMode } from "../code-mode/modes";
import type { ActAs } from "../identity/settings";
import type { Scope } from "../tenant/config";

/** What an admin sets on a key: who it is, what it may do. */
export interface KeyInput {
  name: string;
  scopes: Scope[];
  /** Only these tools may be listed and called with the key; absent: every tool. */
  tools?: string[];
  /** Calls per minute across every isolate; absent: no limit. */
  ratePerMinute?: number;
  /** After this instant (ms since epoch) the key is refused; absent: never. */
  expiresAt?: number;
  /** May act for its app's users (identity/act-as.ts); absent: a request naming a user is refused. */
  actAs?: ActAs;
  /** Its callers' code mode (docs/code-mode.md); absent: the tenant's default. */
  codeMode?: CodeMode;
}

/** A stored key as the admin API shows it: never its secret or hash. */
export interface KeyInfo extends KeyInput {
  id: string;
  createdAt: number;
  /** To within LAST_USED_FLUSH_MS (isolates batch their updates). */
  lastUsedAt?: number;
  rotatedAt?: number;
  /** Until then the secret it had before its last rotation is still accepted. */
  previousValidUntil?: number;
  revokedAt?: number;
}

/** What a check needs of an active key: its hashes (hex) and its rules. */
export interface ActiveKey extends KeyInput {
  id: string;
  hash: string;
  /** The hash before the last rotation, accepted until previousValidUntil. */
  previousHash?: string;
  previousValidUntil?: number;
}
