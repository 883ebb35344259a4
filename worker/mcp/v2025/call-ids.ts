import { hashJson } from "../../../src/hash";
import type { RequestId } from "../../../src/mcp/messages";
import { toBase64Url } from "../base64url";

/**
 * The call id of a legacy session's tools/call, derived from the session and the JSON-RPC request id
 * (unique within a session, by the spec): any isolate that receives the client's
 * notifications/cancelled finds the call in the ledger from these two alone. A request sent again
 * with the same id is the same call (the ledger answers its recorded outcome). Ids of 2026-07-28
 * requests are random (v2026/modern.ts): those requests are cancelled by closing their own stream.
 */
export function sessionCallId(sessionRef: string, requestId: RequestId): string {
  return `${sessionCallPrefix(sessionRef)}${requestPart(requestId)}`;
}

/** What every call id of a session starts with (DELETE cancels the session's running calls by it). */
export function sessionCallPrefix(sessionRef: string): string {
  return `mcp-${sessionRef}-`;
}

/** Readable for the usual ids (1 and "1" stay apart), a digest for anything else. */
function requestPart(id: RequestId): string {
  if (typeof id === "number" && Number.isSafeInteger(id) && id >= 0) return `n${id}`;
  if (typeof id === "string" && /^[A-Za-z0-9_.:-]{1,40}$/.test(id)) return `s${id}`;
  return `h${hashJson(id).slice(0, 24)}`;
}

const ASK_NONCE = /^[A-Za-z0-9_-]{16}$/;
const REQUEST_PART = /^(n[0-9]{1,16}|s[A-Za-z0-9_.:-]{1,40}|h[0-9a-f]{24})$/;

/**
 * The JSON-RPC id of a request a session's call sends its client (legacy-ask.ts): the call's own
 * part of its id and a random nonce, `ask~<part>~<nonce>`. The client's response, landing on any
 * isolate of the same session, finds the call from it (callOfAskId), and nothing else's.
 */
export function askRequestId(sessionRef: string, callId: string): string {
  const nonce = toBase64Url(crypto.getRandomValues(new Uint8Array(12)));
  return `ask~${callId.slice(sessionCallPrefix(sessionRef).length)}~${nonce}`;
}

/** The call of this session a response's id belongs to, when it is one askRequestId made. */
export function callOfAskId(sessionRef: string, id: unknown): string | undefined {
  if (typeof id !== "string") return undefined;
  const [tag, part, nonce, extra] = id.split("~");
  if (tag !== "ask" || extra !== undefined || !part || !nonce || !REQUEST_PART.test(part) || !ASK_NONCE.test(nonce))
    return undefined;
  return `${sessionCallPrefix(sessionRef)}${part}`;
}

/** The ledger id of round `round` (2 and on) of a session's call that asked its client: `<call id>~<round>`. */
export function roundCallId(callId: string, round: number): string {
  return `${callId}~${round}`;
}
