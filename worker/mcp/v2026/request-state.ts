import { answersOverLimit, MAX_CALL_ANSWERS_CHARS } from "../../../src/ask";
import type { JsonValue } from "../../../src/json";
import { hashJson } from "../../../src/hash";
import { callDurable } from "../../durable/call";
import type { LedgerAddress } from "../../ledger/address";
import { fromBase64Url, toBase64Url } from "../base64url";

/**
 * 2026-07-28 multi-round-trip requests keep no state on the server: what a tool was told in earlier
 * rounds travels back and forth in `requestState`, signed (HMAC-SHA-256) with the tenant's key, kept
 * in its ledger, so any isolate checks it and a client cannot alter it. It is bound to the tool and
 * its arguments and expires; the answers in it are the client's own, so it holds nothing secret.
 */

/**
 * Largest requestState accepted: the token carrying at most MAX_CALL_ANSWERS_CHARS of answers, as
 * base64url of their UTF-8 (up to 3 bytes a character, 4 characters per 3 bytes), with the call's
 * digest, expiry and signature. The answers' own bound is checked first, so this one only refuses
 * tokens this server did not make.
 */
export const MAX_REQUEST_STATE_CHARS = 4 * MAX_CALL_ANSWERS_CHARS + 1024;
/** A state older than this is refused: the client starts the call over. */
const STATE_TTL_MS = 60 * 60_000;
/** Where the tenant's signing key lives: one shard of its ledger, the same from every isolate. */
const KEY_SHARD = "mcp-request-state";

interface StatePayload {
  /** hashJson({ tool, args }) of the call the answers belong to. */
  call: string;
  answers: Record<string, JsonValue>;
  expiresAt: number;
}

/**
 * The key never changes once made, so an isolate keeps its CryptoKey (storage stays the source). The
 * key itself, never the promise of it: a promise made in one request and awaited by another never
 * settles in workerd once the first request has ended (map-cache.ts follows the same rule).
 */
const keys = new Map<string, CryptoKey>();

async function signingKey(ledger: LedgerAddress): Promise<CryptoKey> {
  const { tenant } = ledger;
  const kept = keys.get(tenant);
  if (kept) return kept;
  const raw = await callDurable(
    () => ledger.fixed(KEY_SHARD),
    (shard) => shard.secret("mcp-request-state"),
  );
  const key = await crypto.subtle.importKey(
    "raw",
    raw as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
  keys.set(tenant, key);
  return key;
}

const encoder = new TextEncoder();

export function callDigest(tool: string, args: unknown): string {
  return hashJson({ tool, args: args ?? {} });
}

export async function signState(
  ledger: LedgerAddress,
  call: string,
  answers: Record<string, JsonValue>,
): Promise<string> {
  const tooLarge = answersOverLimit(JSON.stringify(answers).length, "The answers so far");
  if (tooLarge) throw new RangeError(tooLarge);
  const body = toBase64Url(
    encoder.encode(JSON.stringify({ call, answers, expiresAt: Date.now() + STATE_TTL_MS } satisfies StatePayload)),
  );
  const tag = await crypto.subtle.sign("HMAC", await signingKey(ledger), encoder.encode(body));
  const state = `${body}.${toBase64Url(new Uint8Array(tag))}`;
  return state;
}

/** The answers a state carries for this call, or why it is refused. */
export async function openState(
  ledger: LedgerAddress,
  call: string,
  state: string,
): Promise<{ answers: Record<string, JsonValue> } | { problem: string }> {
  if (state.length > MAX_REQUEST_STATE_CHARS) return { problem: "requestState is too large" };
  const [body, tagText, extra] = state.split(".");
  const tag = tagText === undefined ? undefined : fromBase64Url(tagText);
  if (!body || !tag || extra !== undefined) return { problem: "requestState is malformed" };
  if (!(await crypto.subtle.verify("HMAC", await signingKey(ledger), tag, encoder.encode(body)))) {
    return { problem: "requestState failed its integrity check (it was not made by this server, or was altered)" };
  }
  const payload = JSON.parse(new TextDecoder().decode(fromBase64Url(body))) as StatePayload;
  if (payload.call !== call)
    return { problem: "requestState belongs to another call (another tool or other arguments)" };
  if (payload.expiresAt <= Date.now()) return { problem: "requestState has expired: call the tool again without it" };
  return { answers: payload.answers };
}
