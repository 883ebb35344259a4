import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfigBlocks } from "../../worker/config-blocks-library";
import { ConfigError } from "../../worker/errors";
import { checkTenant, createTenant } from "../../worker/tenant/tenant";
import { replaceNode } from "../fuzz-tree";

// The seed has optional blocks (identity …), whose schemas readyTenant loads before parsing.
beforeAll(loadConfigBlocks);

/**
 * The tenant configuration parser (TOOLGATE_CONFIG) under random input: every value either builds a
 * tenant or fails with a ConfigError naming what is wrong, never another error (which the Worker
 * would answer as an anonymous 500).
 */

const KEY = { name: "k", hash: "a".repeat(64), scopes: ["admin"] };
const input = { type: "object", properties: { id: { type: "string" } }, required: ["id"] };
/** A configuration using every section, the seed the mutations start from. */
const FULL = {
  name: "acme",
  tools: ["add", "echo", "sleep", "send_message"],
  keys: [KEY, { name: "c", hash: "b".repeat(64), scopes: ["call"], actAs: "header" }],
  policies: { sleep: { concurrency: { limit: 2, maxQueue: 4 }, timeoutMs: 1000, retry: { attempts: 2 } } },
  limits: { maxBodyBytes: 4096, maxCallsPerBatch: 8 },
  requireApprovalFor: { risk: ["high"], tools: ["echo"] },
  deny: ["add"],
  consoleOrigins: ["https://console.example.com"],
  hosts: ["tools.example.com"],
  secrets: { GH: "GH_TOKEN" },
  egress: { allowHosts: ["api.example.com"] },
  http: [
    {
      name: "get_thing",
      description: "d",
      url: "https://api.example.com/things/{id}",
      input,
      auth: { type: "bearer", secret: "GH" },
      rateLimit: { requests: 5, intervalMs: 1000 },
    },
  ],
  openapi: [
    {
      name: "pets",
      document: {
        openapi: "3.0.3",
        info: { title: "t", version: "1" },
        servers: [{ url: "https://pets.example.com" }],
        paths: {
          "/p/{id}": {
            get: {
              operationId: "getPet",
              parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
            },
          },
        },
      },
      prefix: "pet_",
    },
  ],
  mcp: [{ name: "gh", url: "https://mcp.example.com/mcp", prefix: "gh_", tools: ["issue"] }],
  identity: {
    oidc: {
      issuer: "https://acme.okta.com",
      clientId: "0oa1",
      clientSecret: "ACME_OIDC_SECRET",
      requiredClaims: { hd: "acme.com", email_verified: true },
      claims: { id: "email" },
    },
    appTokens: [{ issuer: "https://chat.example", audience: "tg", jwksUri: "https://chat.example/jwks" }],
    claims: { groups: "custom.groups" },
    roles: {
      admins: { groups: ["admins"], scopes: ["admin"] },
      support: { users: ["sam@acme.com"], tools: ["add", "echo"], ratePerMinute: 60 },
      everyone: { groups: ["*"], tools: ["echo"] },
    },
    sessionHours: 12,
  },
};

const leaf = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom("", "add", "__proto__", "constructor", "https://x", "http://127.0.0.1", "{id}", -1, 0, 1e308, null),
);
const mutated = fc
  .array(fc.tuple(leaf, fc.nat(), fc.boolean()), { minLength: 1, maxLength: 3 })
  .map((edits) =>
    edits.reduce<unknown>(
      (config, [value, seed, remove]) => replaceNode(config, value, seed, remove),
      structuredClone(FULL),
    ),
  );
const anyConfig = fc.oneof(
  { weight: 4, arbitrary: mutated },
  { weight: 1, arbitrary: fc.jsonValue() },
  { weight: 1, arbitrary: fc.string().map((text) => `{${text}`) },
  { weight: 1, arbitrary: mutated.map((config) => JSON.stringify(config)) },
);

function outcome(config: unknown): "tenant" | "config_error" {
  try {
    checkTenant(config);
    return "tenant";
  } catch (error) {
    if (!(error instanceof ConfigError))
      throw new Error(`not a ConfigError for ${JSON.stringify(config)?.slice(0, 300)}: ${String(error)}`);
    expect(error.message).toMatch(/^TOOLGATE_CONFIG/);
    return "config_error";
  }
}

describe("the tenant configuration parser under random input", () => {
  it("the seed configuration builds", () => {
    expect(createTenant(FULL).registry.get("pet_getPet")).toBeDefined();
  });

  it("gives a tenant or a ConfigError, never another error", () => {
    const seen = { tenant: 0, config_error: 0 };
    fc.assert(
      fc.property(anyConfig, (config) => {
        seen[outcome(config)]++;
      }),
      { numRuns: 3000 },
    );
    expect(seen.tenant).toBeGreaterThan(50); // harmless mutations still build: the checks are not just "reject all"
    expect(seen.config_error).toBeGreaterThan(100);
  }, 20_000);
});
