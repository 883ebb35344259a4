import { hashJson } from "../../src/hash";
import type { RequestId } from "./protocol";

/**
 * The call id of a legacy session's tools/call, derived from the session and the JSON-RPC request id
 * (unique within a session, by the spec): any isolate that receives the client's
 * notifications/cancelled finds the call in the ledger from these two alone. A request sent again
 * with the same id is the same call (the ledger answers its recorded outcome). Ids of 2026-07-28
 * requests are random: those requests are cancelled by closing their own stream.
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

/** A fresh id for a call no other request needs to find. */
export function randomCallId(): string {
  return `mcp-${crypto.randomUUID()}`;
}
