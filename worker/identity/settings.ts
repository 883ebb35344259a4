import { ConfigError } from "../errors";
import type { IdentityConfig } from "./config";
import type { ActAs } from "./lazy/types";

/*
 * What every tenant's bundle reads of the `identity` block; its schema (config.ts) is in the optional
 * blocks' module, loaded only for a configuration that has the block.
 */

/** What a key may send to act for users (`keys[].actAs`, POST /v1/keys): see ActAs in src/contract/keys.ts. */
export const ACT_AS = ["token", "header"] as const satisfies readonly ActAs[];
export type { ActAs } from "./lazy/types";

/** Whether people sign in to this tenant (OIDC or Access): only then does it have an Identity object. */
export function signsPeopleIn(identity: IdentityConfig | undefined): boolean {
  return identity?.oidc !== undefined || identity?.access !== undefined;
}

/**
 * The OIDC client secret, from the Worker secret `identity.oidc.clientSecret` names; undefined when no
 * OIDC is configured. Throws ConfigError when the secret is not set (readyTenant checks it on every
 * request, so a deploy without it fails at once, naming it).
 */
export function oidcClientSecret(
  identity: IdentityConfig | undefined,
  env: Record<string, unknown>,
): string | undefined {
  if (!identity?.oidc) return undefined;
  const name = identity.oidc.clientSecret;
  const value = env[name];
  if (typeof value !== "string" || value === "")
    throw new ConfigError(
      `identity.oidc.clientSecret: the Worker secret ${name} is not set (wrangler secret put ${name})`,
    );
  return value;
}
