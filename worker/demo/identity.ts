import type { TenantConfigInput } from "../tenant/config";
import { DEMO_CONFIG } from "./tenant";

/**
 * The demo tenant with people signing in through the demo identity provider (scripts/idp/demo-idp.ts),
 * as `npm run dev:idp` and the console tests run it: identity.oidc from TOOLGATE_DEV_IDP (the
 * provider's issuer, which must be plain http on loopback: this is for a developer's machine) and the
 * client secret TOOLGATE_DEV_IDP_SECRET; alice (group admins) is an admin, everyone else may call.
 * `flaky` asks the person a call is for (`approval: "user"`): they decide it in the console's
 * Approvals. Without TOOLGATE_DEV_IDP the demo is as before.
 */

/** The demo provider's client (scripts/idp/demo-idp.ts DEMO_CLIENT_ID). */
const CLIENT_ID = "toolgate-demo";

const withIdp = new Map<string, TenantConfigInput>();

/** Whether the issuer is plain http on a loopback address: only a provider on this machine is trusted here. */
function loopbackHttp(issuer: string): boolean {
  try {
    const url = new URL(issuer);
    return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
  } catch {
    return false;
  }
}

/** The demo's configuration for these vars: with the demo provider when TOOLGATE_DEV_IDP names one on loopback. */
export function demoConfig(env: Record<string, unknown>): TenantConfigInput {
  const issuer = env.TOOLGATE_DEV_IDP;
  if (typeof issuer !== "string" || !loopbackHttp(issuer)) return DEMO_CONFIG;
  let config = withIdp.get(issuer);
  if (!config) {
    config = {
      ...DEMO_CONFIG,
      identity: {
        oidc: {
          name: "Demo IdP",
          issuer,
          clientId: CLIENT_ID,
          clientSecret: "TOOLGATE_DEV_IDP_SECRET",
          scopes: ["openid", "email", "profile", "groups"],
        },
        roles: { admins: { groups: ["admins"], scopes: ["admin"] }, everyone: { groups: ["*"] } },
      },
      // A tool no console test runs: its calls wait for their own user's decision.
      policies: { ...DEMO_CONFIG.policies, flaky: { approval: "user" } },
    };
    withIdp.set(issuer, config);
  }
  return config;
}
