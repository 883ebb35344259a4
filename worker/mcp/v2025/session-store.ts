import { isLogLevel, type LogLevel } from "../../../src/mcp/messages";
import { callDurable } from "../../durable/call";
import type { LedgerAddress } from "../../ledger/address";
import type { Session } from "./session";

/** The level of notifications/message a legacy session gets until its client sets one. */
export const DEFAULT_SESSION_LEVEL: LogLevel = "info";

export interface SessionState {
  level: LogLevel;
  ended: boolean;
}

/**
 * A legacy session's state in the tenant's ledger, on the shard its reference maps to: read once per
 * request (one RPC), written by logging/setLevel and DELETE. Every isolate sees the same.
 */
export interface SessionStore {
  read(session: Session): Promise<SessionState>;
  setLevel(session: Session, level: LogLevel): Promise<void>;
  end(session: Session): Promise<void>;
}

export function createSessionStore(ledger: LedgerAddress): SessionStore {
  const shard = (session: Session) => () => ledger.fixed(session.ref);
  return {
    async read(session) {
      const stored = await callDurable(shard(session), (stub) => stub.mcpSession(session.ref));
      return { level: isLogLevel(stored.level) ? stored.level : DEFAULT_SESSION_LEVEL, ended: stored.ended };
    },
    setLevel: (session, level) =>
      callDurable(shard(session), (stub) => stub.setMcpSessionLevel(session.ref, level, session.expiresAt)),
    end: (session) => callDurable(shard(session), (stub) => stub.endMcpSession(session.ref, session.expiresAt)),
  };
}
