import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../worker/errors";
import { claimsFor } from "../../../worker/identity/lazy/claims";
import { parseTenantConfig } from "../../../worker/tenant/config";
import { json, request, tenantConfig } from "../helpers/requests";
import { loadConfigBlocks } from "../../../worker/config-blocks-library";

// The `identity` block's schema is in the optional blocks' module, which readyTenant loads before parsing.
await loadConfigBlocks();

/**
 * The tenant's `identity` block: its defaults, and an error naming the field for each mistake, both
 * when the configuration is parsed and as every request of a deployed tenant answers it.
 */

const base = { name: "acme", tools: ["add"], keys: [{ name: "k", hash: "a".repeat(64), scopes: ["admin"] }] };
const OIDC = { issuer: "https://acme.okta.com", clientId: "0oa1", clientSecret: "ACME_OIDC_SECRET" };

function configError(identity: unknown, more: Record<string, unknown> = {}): string {
  try {
    parseTenantConfig({ ...base, ...more, identity });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("identity configuration", () => {
  it("fills in the defaults", () => {
    const { identity } = parseTenantConfig({
      ...base,
      identity: { oidc: OIDC, appTokens: [{ issuer: "https://chat", audience: "tg", jwksUri: "https://chat/jwks" }] },
    });
    expect(identity).toEqual({
      oidc: {
        ...OIDC,
        clientAuth: "client_secret_basic",
        scopes: ["openid", "email", "profile"],
        algorithms: ["RS256", "ES256"],
        requiredClaims: {},
        claims: {},
      },
      appTokens: [
        {
          issuer: "https://chat",
          audience: "tg",
          jwksUri: "https://chat/jwks",
          algorithms: ["RS256", "ES256"],
          maxLifetimeSeconds: 3600,
          claims: {},
        },
      ],
      claims: {},
      sessionHours: 8,
    });
    expect(parseTenantConfig(base).identity).toBeUndefined();
  });

  it("names the field of each mistake", () => {
    expect(
      configError({ oidc: OIDC, access: { teamDomain: "https://acme.cloudflareaccess.com", audience: "a" } }),
    ).toMatch(/identity: oidc and access cannot both be set/);
    expect(configError({ oidc: { ...OIDC, issuer: "http://acme.okta.com" } })).toMatch(
      /identity\.oidc\.issuer: must be https \(http only on loopback\)/,
    );
    expect(configError({ oidc: { ...OIDC, clientSecret: "not a name" } })).toMatch(
      /identity\.oidc\.clientSecret: must name a Worker secret/,
    );
    expect(configError({ oidc: { ...OIDC, scopes: ["email"] } })).toMatch(
      /identity\.oidc\.scopes: must include "openid"/,
    );
    expect(configError({ oidc: { ...OIDC, algorithms: ["HS256"] } })).toMatch(
      /identity\.oidc\.algorithms\[0\]: must be one of .* \(never none or HS\*\)/,
    );
    expect(configError({ oidc: { ...OIDC, algorithms: ["none"] } })).toMatch(/never none or HS\*/);
    expect(configError({ access: { teamDomain: "https://acme.cloudflareaccess.com/path", audience: "a" } })).toMatch(
      /identity\.access\.teamDomain: must be an origin/,
    );
    expect(
      configError({
        appTokens: [
          { issuer: "https://chat", audience: "tg", jwksUri: "https://chat/jwks" },
          { issuer: "https://chat", audience: "tg2", jwksUri: "https://chat/jwks2" },
        ],
      }),
    ).toMatch(/identity\.appTokens: must list each issuer once/);
    expect(configError({ appTokens: [{ issuer: "i", audience: "a", jwksUri: "http://10.0.0.1/jwks" }] })).toMatch(
      /identity\.appTokens\[0\]\.jwksUri: must be https/,
    );
    expect(configError({ roles: { staff: { scopes: ["call"] } } })).toMatch(
      /identity\.roles\.staff: must name groups or users/,
    );
    expect(configError({ roles: { staff: { groups: ["s"], scopes: ["root"] } } })).toMatch(
      /identity\.roles\.staff\.scopes\[0\]: must be "call" or "admin"/,
    );
    expect(configError({ roles: { staff: { groups: ["s"], ratePerMinute: 0 } } })).toMatch(
      /identity\.roles\.staff\.ratePerMinute: must be at least 1/,
    );
    expect(configError({ sessionHours: 48 })).toMatch(/identity\.sessionHours: must be at most 24/);
    expect(configError({ providers: [] })).toMatch(/identity/);
    expect(configError(undefined, { keys: [{ ...base.keys[0], actAs: "always" }] })).toMatch(
      /keys\[0\]\.actAs: must be "token" or "header"/,
    );
  });

  it("takes plain http on loopback hosts only (local development)", () => {
    for (const issuer of ["http://127.0.0.1:9090", "http://localhost:9090", "http://[::1]:9090"])
      expect(parseTenantConfig({ ...base, identity: { oidc: { ...OIDC, issuer } } }).identity?.oidc?.issuer).toBe(
        issuer,
      );
    expect(configError({ oidc: { ...OIDC, issuer: "http://192.168.1.2" } })).toMatch(/must be https/);
  });

  it("reads claims per source: its own over the tenant's over the defaults (Access: email, custom.groups)", () => {
    const { identity } = parseTenantConfig({
      ...base,
      identity: {
        oidc: { ...OIDC, claims: { id: "oid" } },
        claims: { groups: "roles" },
        appTokens: [{ issuer: "i", audience: "a", jwksUri: "https://i/jwks", claims: { name: "display" } }],
      },
    });
    expect(claimsFor(identity!, "oidc")).toEqual({ id: "oid", name: "name", email: "email", groups: "roles" });
    expect(claimsFor(identity!, "app-token", identity!.appTokens[0])).toEqual({
      id: "sub",
      name: "display",
      email: "email",
      groups: "roles",
    });
    const access = parseTenantConfig({
      ...base,
      identity: { access: { teamDomain: "https://acme.cloudflareaccess.com", audience: "a" } },
    }).identity!;
    expect(claimsFor(access, "access")).toEqual({ id: "email", name: "name", email: "email", groups: "custom.groups" });
  });

  it("answers every request with config_invalid naming the OIDC client secret while it is not set", async () => {
    const config = tenantConfig({ identity: { oidc: OIDC } });
    for (const path of ["/healthz", "/v1/tools"]) {
      const res = await request(path, { env: { TOOLGATE_CONFIG: config } });
      expect(res.status, path).toBe(500);
      expect((await json(res)).error, path).toEqual({
        code: "config_invalid",
        message:
          "identity.oidc.clientSecret: the Worker secret ACME_OIDC_SECRET is not set " +
          "(wrangler secret put ACME_OIDC_SECRET)",
      });
    }
    const set = await request("/v1/tools", { env: { TOOLGATE_CONFIG: config, ACME_OIDC_SECRET: "s3cret" } });
    expect(set.status).toBe(200);
  });
});
