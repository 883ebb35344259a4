import type { PlainStub } from "../durable/stub";
import type { Connections } from "./object";

/** A Connections object's RPC methods, as callers use them: derived from the class. */
export type ConnectionsStub = PlainStub<Connections>;

/** The Connections Durable Object namespace as used here (structural: env.CONNECTIONS satisfies it). */
export interface ConnectionsNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): ConnectionsStub;
}

/** One user's Connections object in a tenant (env.CONNECTIONS): only tenants with `connections` address one. */
export function userConnections(env: { CONNECTIONS: ConnectionsNamespace }, tenant: string, userKey: string) {
  const ns = env.CONNECTIONS;
  return ns.get(ns.idFromName(`${tenant}\n${userKey}`));
}
