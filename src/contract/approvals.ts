import type { JsonValue } from "../json";
import type { Risk } from "../policy";
import type { CallEntry } from "./calls";
import type { CallSurface } from "./surface";
import type { UserRef } from "./users";

/**
 * One rule that asks for approval: where it is written (`policy.approval`,
 * `requireApprovalFor.risk` …) and what it says.
 */
export interface ApprovalReason {
  rule: "policy.approval" | "requireApprovalFor.tools" | "requireApprovalFor.risk" | "hook" | "unknown" | (string & {});
  detail: string;
}

/** A call awaiting an admin's decision (GET /v1/approvals). */
export interface PendingApproval {
  callId: string;
  tool: string;
  /** Masked arguments. */
  args: JsonValue;
  requestedAt: number;
  /** When it turns denied by itself; null when it never expires. */
  expiresAt: number | null;
  /** Who asked: the key's name, or `oauth:<client>#<grant>`; null for records older than keys. */
  key: string | null;
  /** Where the call came in (http, mcp, binding); null when not recorded. */
  surface: CallSurface | null;
  /** The tool's risk level, as its effective policy says now. */
  risk: Risk;
  /** Why it waits: every rule that asks for approval of this call's tool. */
  reasons: ApprovalReason[];
  /** The user the call was made for; null or absent for a call made for none. */
  user?: UserRef | null;
  /** Whether the reader may decide it: admins always, others the calls of theirs whose tool asks its user. */
  decidable?: boolean;
}

export interface ApprovalPage {
  approvals: PendingApproval[];
  nextCursor: string | null;
}

/** POST /v1/approvals/:id: a denial answers the entry; an approval answers at once and runs the call after. */
export type DecisionAnswer =
  | { callId: string; decision: "deny"; call: CallEntry }
  | { callId: string; decision: "approve"; status: "running" };
