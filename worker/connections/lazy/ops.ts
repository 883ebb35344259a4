import { type DisconnectResult, disconnect } from "./disconnect";
import type { ConnectionClient } from "./oauth-client";
import { parkCall, parkedReady, takeParked, unpark } from "./parked";
import { type ConnectionInfo, keepSubject, listConnections, memberCounts, noteMember, type Owner } from "./store";

/**
 * What a Connections object does for the listing and the disconnect, by name: the object runs them
 * through one RPC method (object.ts `run`), so each adds nothing to the Worker's bundle.
 */
export const objectOps = {
  /** The user's connections: scopes, since, last used; never a token. */
  listConnections: (sql: SqlStorage): ConnectionInfo[] => listConnections(sql),
  /** Removes the user's tokens of `connection` and revokes them at the provider (disconnect.ts). */
  disconnect: (
    sql: SqlStorage,
    owner: Owner,
    connection: string,
    client: ConnectionClient,
    secrets: readonly string[],
  ): Promise<DisconnectResult> => disconnect(sql, { owner, connection, client }, secrets),
  /** Keeps the user's ID token of a console sign-in, sealed under `secrets[0]` (exchange connections' subject). */
  keepSubject: (
    sql: SqlStorage,
    owner: Owner,
    idToken: { token: string; expiresAt: number },
    secrets: readonly string[],
  ): Promise<void> => keepSubject(sql, secrets[0]!, owner, idToken),
  /** The tenant's index object: notes that a user holds (or no longer holds) a connection. */
  noteMember: (sql: SqlStorage, userKey: string, connection: string, holds: boolean): void =>
    noteMember(sql, userKey, connection, holds),
  /** The tenant's index object: how many users hold each connection. */
  memberCounts: (sql: SqlStorage): Record<string, number> => memberCounts(sql),
  /** Parks a call on a connection the user lacks (parked.ts); false when too many are parked. */
  parkCall: (sql: SqlStorage, callId: string, connection: string, scopes: string[], expiresAt: number): boolean =>
    parkCall(sql, callId, connection, scopes, expiresAt),
  /** The calls parked on `connection` that its new tokens serve, unparked. */
  takeParked: (sql: SqlStorage, connection: string): string[] => takeParked(sql, connection),
  /** A parked call's run ended waiting: answer it now (the user connected meanwhile)? */
  parkedReady: (sql: SqlStorage, callId: string): boolean => parkedReady(sql, callId),
  /** A parked call ended (cancelled): its row goes. */
  unpark: (sql: SqlStorage, callId: string): boolean => unpark(sql, callId),
};

type ObjectOps = typeof objectOps;

/** The tenant's index: the Connections object of this key (no user key starts with "#"). */
export const TENANT_INDEX = "#index";
type ArgsOf<F> = F extends (sql: SqlStorage, ...rest: infer R) => unknown ? R : never;

/** One operation as the object's `run` takes it: its name, then its arguments. */
export type OpCall = { [K in keyof ObjectOps]: [K, ...ArgsOf<ObjectOps[K]>] }[keyof ObjectOps];

/** An object that runs operations (a Connections stub). */
export interface OpRunner {
  run(...call: OpCall): Promise<unknown>;
}

/** Runs operation `op` in `object`: its answer, typed as the operation's. */
export function runOp<K extends keyof ObjectOps>(
  object: OpRunner,
  op: K,
  ...args: ArgsOf<ObjectOps[K]>
): Promise<Awaited<ReturnType<ObjectOps[K]>>> {
  return (object.run as (...call: unknown[]) => Promise<never>)(op, ...args);
}

/** The object's side: runs the operation a call names over its storage. */
export function runOpCall(sql: SqlStorage, call: OpCall): unknown {
  const [op, ...args] = call;
  return (objectOps[op] as (sql: SqlStorage, ...rest: unknown[]) => unknown)(sql, ...args);
}
