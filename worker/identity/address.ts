import type { PlainStub } from "../durable/stub";
import type { Identity } from "./object";

/** An Identity object's RPC methods, as callers use them: derived from the class, so they cannot drift from it. */
export type IdentityStub = PlainStub<Identity>;

/** The Identity Durable Object namespace as used here (structural: env.IDENTITY satisfies it). */
export interface IdentityNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): IdentityStub;
}

/** Where a tenant's people live: one Identity object per tenant that signs people in. */
export interface IdentityAddress {
  readonly tenant: string;
  /** A fresh stub of the tenant's object. */
  object(): IdentityStub;
}

/**
 * The tenant's Identity object in this environment (env.IDENTITY). Address it only for a tenant that
 * signs people in (signsPeopleIn, identity/config.ts): no other tenant ever makes one.
 */
export function tenantIdentity(env: { IDENTITY: IdentityNamespace }, tenant: string): IdentityAddress {
  const ns = env.IDENTITY;
  return { tenant, object: () => ns.get(ns.idFromName(tenant)) };
}
