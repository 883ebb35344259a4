import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../worker/errors";
import { createTenant } from "../../../worker/tenant/tenant";
import { parseTenantConfig } from "../../../worker/tenant/config";
import { json, request, tenantConfig } from "../helpers/requests";
import { loadConfigBlocks } from "../../../worker/config-blocks-library";

// The `connections` block's schema is in the optional blocks' module, which readyTenant loads before parsing.
await loadConfigBlocks();

/**
 * The tenant's `connections` block and the adapter tools acting as the user through one: defaults, and
 * an error naming the field for each mistake, when the configuration is parsed, when the tenant is built
 * and as every request of a deployed tenant answers it.
 */

const base = { name: "acme", tools: ["add"], keys: [{ name: "k", hash: "a".repeat(64), scopes: ["admin"] }] };
const identity = { oidc: { issuer: "https://acme.okta.com", clientId: "0oa1", clientSecret: "ACME_OIDC_SECRET" } };
const GITHUB = {
  authorizationEndpoint: "https://github.com/login/oauth/authorize",
  tokenEndpoint: "https://github.com/login/oauth/access_token",
  clientId: "Iv1.abc",
  clientSecret: "GITHUB_CLIENT_SECRET",
};
const issues = {
  name: "my_issues",
  description: "The caller's GitHub issues",
  url: "https://api.github.com/issues",
  connection: { name: "github", scopes: ["repo"] },
};

function configError(more: Record<string, unknown>): string {
  try {
    createTenant({ ...base, identity, ...more });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}
const connectionError = (connection: Record<string, unknown>) => configError({ connections: { github: connection } });

describe("connections configuration", () => {
  it("fills in the defaults, and is absent unless declared", () => {
    const { connections } = parseTenantConfig({ ...base, identity, connections: { github: GITHUB } });
    expect(connections).toEqual({
      github: {
        ...GITHUB,
        clientAuth: "client_secret_basic",
        scopes: [],
        scopeSeparator: " ",
        tokenResponse: "oauth",
        pkce: true,
        authorizeParams: {},
      },
    });
    expect(parseTenantConfig(base).connections).toBeUndefined();
    const google = parseTenantConfig({
      ...base,
      identity,
      connections: {
        google: {
          issuer: "https://accounts.google.com",
          clientId: "123.apps.googleusercontent.com",
          clientSecret: "GOOGLE_CLIENT_SECRET",
          scopes: ["https://www.googleapis.com/auth/calendar.readonly"],
          authorizeParams: { access_type: "offline", prompt: "consent" },
        },
      },
    }).connections!.google!;
    expect(google.authorizeParams).toEqual({ access_type: "offline", prompt: "consent" });
  });

  it("names the field of each mistake", () => {
    expect(connectionError({ ...GITHUB, tokenEndpoint: undefined })).toMatch(
      /connections\.github: must set issuer \(its metadata names the endpoints\), or authorizationEndpoint and tokenEn/,
    );
    expect(connectionError({ ...GITHUB, tokenEndpoint: "http://github.com/token" })).toMatch(
      /connections\.github\.tokenEndpoint: must be https \(http only on loopback\)/,
    );
    expect(connectionError({ ...GITHUB, clientSecret: "not a name" })).toMatch(
      /connections\.github\.clientSecret: must name a Worker secret/,
    );
    expect(connectionError({ ...GITHUB, scopes: ["read user"] })).toMatch(
      /connections\.github\.scopes\[0\]: must be an OAuth scope/,
    );
    expect(connectionError({ ...GITHUB, authorizeParams: { state: "x" } })).toMatch(
      /connections\.github\.authorizeParams\.state: is set by toolgate/,
    );
    expect(connectionError({ ...GITHUB, tokenResponse: "github" })).toMatch(
      /connections\.github\.tokenResponse: must be "oauth" or "slack"/,
    );
    expect(connectionError({ ...GITHUB, scopeSeparator: ";" })).toMatch(
      /connections\.github\.scopeSeparator: must be " " or ","/,
    );
    expect(connectionError({ ...GITHUB, token: "ghp_x" })).toMatch(/connections\.github/);
    expect(configError({ connections: { GitHub: GITHUB } })).toMatch(/connections\.GitHub: must be 1-32 lowercase/);
  });

  it("needs people to sign in (OpenID or Cloudflare Access), since they connect in the console", () => {
    const access = { access: { teamDomain: "https://acme.cloudflareaccess.com", audience: "a" } };
    expect(parseTenantConfig({ ...base, identity: access, connections: { github: GITHUB } }).connections).toBeDefined();
    expect(() => parseTenantConfig({ ...base, connections: { github: GITHUB } })).toThrow(
      "connections.github: people connect in the console, so they must sign in to it with identity.oidc or " +
        "identity.access",
    );
  });

  it("reads an exchange connection (RFC 8693) with its defaults, and names each mistake's field", () => {
    const KEYCLOAK = {
      kind: "exchange",
      issuer: "https://sso.acme.com/realms/acme",
      clientId: "toolgate",
      clientSecret: "KEYCLOAK_EXCHANGE_SECRET",
      audience: "calendar-api",
    };
    const { connections } = parseTenantConfig({ ...base, identity, connections: { calendar: KEYCLOAK } });
    expect(connections!.calendar).toEqual({
      ...KEYCLOAK,
      clientAuth: "client_secret_basic",
      scopes: [],
      requestedTokenType: "access_token",
      scopeSeparator: " ",
      tokenResponse: "oauth",
      pkce: false,
      authorizeParams: {},
    });
    const exchangeError = (connection: Record<string, unknown>) =>
      configError({ connections: { calendar: { ...KEYCLOAK, ...connection } } });
    expect(exchangeError({ issuer: undefined })).toMatch(
      /connections\.calendar: must set issuer \(its metadata names the token endpoint\), or tokenEndpoint/,
    );
    expect(exchangeError({ requestedTokenType: "id_token" })).toMatch(
      /connections\.calendar\.requestedTokenType: must be "access_token" or "jwt"/,
    );
    expect(exchangeError({ subjectTokenType: "saml2" })).toMatch(
      /connections\.calendar\.subjectTokenType: must be "id_token" or "jwt" or "access_token"/,
    );
    expect(exchangeError({ resource: "http://api.acme.com" })).toMatch(
      /connections\.calendar\.resource: must be https \(http only on loopback\)/,
    );
    expect(exchangeError({ authorizeParams: { prompt: "consent" } })).toMatch(/connections\.calendar\.authorizeParams/);
    expect(exchangeError({ kind: "device" })).toMatch(/connections\.calendar\.kind: must be "oauth" or "exchange"/);
    // An exchange needs an identity token of the user: a console sign-in's or an app's.
    expect(() => parseTenantConfig({ ...base, connections: { calendar: KEYCLOAK } })).toThrow(
      /connections\.calendar: an exchange trades the user's identity token, so the tenant needs identity\.oidc/,
    );
    const appTokens = [
      { issuer: "https://chat.acme.com", audience: "toolgate", jwksUri: "https://chat.acme.com/jwks" },
    ];
    expect(
      parseTenantConfig({ ...base, identity: { appTokens }, connections: { calendar: KEYCLOAK } }).connections,
    ).toBeDefined();
  });

  it("refuses a tool naming a connection that is not declared, or sending another Authorization", () => {
    const connections = { github: GITHUB };
    const tenant = createTenant({ ...base, identity, connections, http: [issues] });
    expect(tenant.registry.get("my_issues")?.name).toBe("my_issues");
    expect(configError({ connections, http: [{ ...issues, connection: { name: "gitlab" } }] })).toMatch(
      /http\[0\]\.connection\.name: no connection "gitlab" in "connections" \(declared: github\)/,
    );
    expect(configError({ http: [issues] })).toMatch(
      /http\[0\]\.connection\.name: no connection "github" in "connections" \(declare it there\)/,
    );
    expect(
      configError({
        connections,
        secrets: { GH: "GH" },
        http: [{ ...issues, auth: { type: "bearer", secret: "GH" } }],
      }),
    ).toMatch(/http\[0\]\.auth: a "bearer" credential would replace the user's token of connection "github"/);
    expect(configError({ connections, http: [{ ...issues, connection: { name: "github", scopes: [""] } }] })).toMatch(
      /http\[0\]: HTTP tool "my_issues": invalid connection\.scopes\.0: must be an OAuth scope/,
    );
    const document = {
      openapi: "3.0.3",
      info: { title: "GitHub", version: "1" },
      servers: [{ url: "https://api.github.com" }],
      paths: { "/issues": { get: { operationId: "listIssues", responses: { "200": { description: "ok" } } } } },
    };
    expect(configError({ connections, openapi: [{ name: "gh", document, connection: { name: "gitlab" } }] })).toMatch(
      /openapi\[0\]\.connection\.name: no connection "gitlab"/,
    );
  });

  it("answers every request with config_invalid naming a connection's client secret while it is not set", async () => {
    const config = tenantConfig({ identity, connections: { github: GITHUB } });
    const secrets = { ACME_OIDC_SECRET: "s3cret", TOOLGATE_CONNECTIONS_SECRET: "x".repeat(32) };
    for (const path of ["/healthz", "/v1/tools"]) {
      const res = await request(path, { env: { TOOLGATE_CONFIG: config, ...secrets } });
      expect(res.status, path).toBe(500);
      expect((await json(res)).error, path).toEqual({
        code: "config_invalid",
        message:
          "connections.github.clientSecret: the Worker secret GITHUB_CLIENT_SECRET is not set " +
          "(wrangler secret put GITHUB_CLIENT_SECRET)",
      });
    }
    const set = await request("/v1/tools", {
      env: { TOOLGATE_CONFIG: config, ...secrets, GITHUB_CLIENT_SECRET: "gh-s3cret" },
    });
    expect(set.status).toBe(200);
  });

  it("answers every request with config_invalid while the connections secret is not set, or short", async () => {
    const config = tenantConfig({ identity, connections: { github: GITHUB } });
    const secrets = { ACME_OIDC_SECRET: "s3cret", GITHUB_CLIENT_SECRET: "gh-s3cret" };
    for (const secret of [undefined, "short"]) {
      const env = { TOOLGATE_CONFIG: config, ...secrets, TOOLGATE_CONNECTIONS_SECRET: secret };
      const res = await request("/healthz", { env });
      expect(res.status).toBe(500);
      expect((await json(res)).error.message).toBe(
        "connections: the Worker secret TOOLGATE_CONNECTIONS_SECRET must be set to at least 32 random characters " +
          "(openssl rand -base64 32 | npx wrangler secret put TOOLGATE_CONNECTIONS_SECRET)",
      );
    }
  });
});
