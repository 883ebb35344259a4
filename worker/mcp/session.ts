import type { LogLevel, RequestId } from "./protocol";

/**
 * MCP sessions without a session store. A session id is 128 random bits plus a tag binding them to
 * the SHA-256 of the API key that created it: any isolate can check an id against the request's key
 * without a round trip, and a leaked id is useless with another key (or without one).
 *
 * What lives only in the isolate that saw it (the cross-isolate limits): the log level a client set,
 * the in-flight calls a `notifications/cancelled` can abort, and the ids of deleted sessions. A
 * cancel that lands on another isolate finds nothing to abort (the call runs to its end or timeout);
 * a deleted id stays usable on isolates that never saw the DELETE.
 */

const encoder = new TextEncoder();
const RANDOM_BYTES = 16;
const TAG_BYTES = 16;
const DOMAIN = encoder.encode("toolgate/mcp-session/v1");

/** How often a running call looks for a cancel that another request asked for. */
const CANCEL_POLL_MS = 50;

/**
 * A running tools/call that another request (notifications/cancelled, DELETE) may cancel. workerd
 * runs a promise's continuations in the request that settled it, so aborting from the cancelling
 * request would run the rest of the call (gate release, ledger write, the answer) in a request that
 * has already ended, where it hangs. So a cancel only leaves a flag; a timer of the call's own
 * request sees it and aborts there.
 */
export class InFlightCall {
  private readonly controller = new AbortController();
  private requested: unknown;
  private readonly timer = setInterval(() => {
    if (this.requested === undefined) return;
    this.controller.abort(this.requested);
    this.stop();
  }, CANCEL_POLL_MS);

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  cancel(reason: unknown): void {
    this.requested ??= reason;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export interface SessionState {
  /** Minimum level of notifications/message; "info" until the client sets one. */
  level: LogLevel;
  /** Running tools/call requests by JSON-RPC id (JSON text, so 1 and "1" stay apart). */
  inFlight: Map<string, InFlightCall>;
}

const MAX_SESSIONS = 2_000;
const MAX_DELETED = 10_000;
const sessions = new Map<string, SessionState>();
const deleted = new Set<string>();

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

async function tagOf(random: Uint8Array, keyHash: Uint8Array): Promise<Uint8Array> {
  const input = new Uint8Array(DOMAIN.length + random.length + keyHash.length);
  input.set(DOMAIN, 0);
  input.set(random, DOMAIN.length);
  input.set(keyHash, DOMAIN.length + random.length);
  return new Uint8Array(await crypto.subtle.digest("SHA-256", input)).slice(0, TAG_BYTES);
}

/** A new session id for the key with this hash. */
export async function createSessionId(keyHash: Uint8Array): Promise<string> {
  const random = crypto.getRandomValues(new Uint8Array(RANDOM_BYTES));
  return `${toBase64Url(random)}.${toBase64Url(await tagOf(random, keyHash))}`;
}

/** Was this id made for this key (and not deleted here)? Compares tags in constant time. */
export async function isSessionOf(id: string, keyHash: Uint8Array): Promise<boolean> {
  if (id.length > 64 || deleted.has(id)) return false;
  const [randomPart, tagPart, extra] = id.split(".");
  if (extra !== undefined || !randomPart || !tagPart) return false;
  const random = fromBase64Url(randomPart);
  const tag = fromBase64Url(tagPart);
  if (random?.length !== RANDOM_BYTES || tag?.length !== TAG_BYTES) return false;
  return crypto.subtle.timingSafeEqual(tag, await tagOf(random, keyHash));
}

/** This isolate's state of a session, made on first use (the session may have begun elsewhere). */
export function sessionState(id: string): SessionState {
  let state = sessions.get(id);
  if (state) {
    // Re-inserted so the map's order is least recently used first.
    sessions.delete(id);
  } else {
    state = { level: "info", inFlight: new Map() };
    if (sessions.size >= MAX_SESSIONS) evictIdle();
  }
  sessions.set(id, state);
  return state;
}

function evictIdle(): void {
  for (const [id, state] of sessions) {
    if (state.inFlight.size === 0) {
      sessions.delete(id);
      return;
    }
  }
}

/** DELETE: the id is refused from now on here, and its running calls are aborted. */
export function endSession(id: string, reason: unknown): void {
  const state = sessions.get(id);
  sessions.delete(id);
  if (deleted.size >= MAX_DELETED) deleted.delete(deleted.values().next().value!);
  deleted.add(id);
  for (const call of state?.inFlight.values() ?? []) call.cancel(reason);
}

export function inFlightKey(id: RequestId): string {
  return JSON.stringify(id);
}
