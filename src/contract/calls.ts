import type { FormatName } from "../formats/index";
import type { CallRecord, CallStatus } from "../result";
import type { CallSurface } from "./surface";
import type { AnswerOf } from "./tools";
import type { UserRef } from "./users";

/** The answer of POST /v1/calls/:format: the format's answer plus every call's record, in order. */
export type RunAnswer<F extends FormatName> = AnswerOf<F> & { calls: CallRecord[] };

export interface ApprovalInfo {
  state: "requested" | "approved" | "denied" | "expired" | "cancelled";
  reason?: string;
  decidedAt?: number;
  /** Who decided: `user:<id>` (a person, or a key acting for them) or `key:<name>`; absent for older records. */
  decidedBy?: string;
  expiresAt?: number;
}

/** One call as the ledger answers it (GET /v1/calls/:id, list items, approvals). */
export interface CallEntry {
  record: CallRecord;
  /** The stored record was cut to fit; the full output pages through result(). */
  truncated: boolean;
  resultChars: number | null;
  /** When the call was first accepted (ms): record.startedAt moves when the call runs again, this does not. */
  createdAt: number;
  approval: ApprovalInfo | null;
  cancelRequested: boolean;
  /** The name of the key the call was made with (never the key); null when unknown (older records). */
  key: string | null;
  /** Where the call came in; null for calls recorded before surfaces were (and for local runs). */
  surface: CallSurface | null;
  /** The user the call was made for; null or absent for a call made for none. */
  user?: UserRef | null;
}

export interface CallQuery {
  tool?: string;
  status?: CallStatus;
  /** Calls whose id starts with this (an exact id matches itself). */
  callId?: string;
  /** The name of the key (or `oauth:<client>#<grant>`) that made the calls; a call key sees only its own anyway. */
  key?: string;
  surface?: CallSurface;
  /** The id of the user the calls were made for (admins; anyone else sees only their own anyway). */
  user?: string;
  /** Epoch ms or an ISO date: calls started at or after it. */
  since?: number | string;
  /** Epoch ms or an ISO date: calls started at or before it. */
  until?: number | string;
  limit?: number;
  cursor?: string;
}

export interface CallPage {
  calls: CallEntry[];
  /** Pass as `cursor` for the next (older) page; null at the end. */
  nextCursor: string | null;
}

export interface ResultPage {
  callId: string;
  offset: number;
  limit: number;
  total: number;
  text: string;
  nextOffset: number | null;
}

export interface CancelAnswer {
  callId: string;
  state: "cancelled" | "cancel_requested";
  call: CallEntry;
}

/** POST /v1/calls/:id/input: `resumed` once every open question is answered, else `awaiting_input` with the rest. */
export interface InputAnswer {
  callId: string;
  state: "resumed" | "awaiting_input";
  call: CallEntry;
}
