import { describe, expect, it } from "vitest";
import { executeCall } from "../../../src/pipeline/execute";
import { CATALOG } from "../../../worker/tenant/catalog";
import { ConfigError } from "../../../worker/errors";
import { parseTenantConfig } from "../../../worker/tenant/config";
import { checkTenant, createTenant, resolveSecrets } from "../../../worker/tenant/tenant";
import { json, request } from "../helpers/requests";
import { sha256Hex } from "../../../src/sha256";

const HASH = "a".repeat(64);
const base = { name: "acme", tools: ["add", "echo"], keys: [{ name: "ops", hash: HASH, scopes: ["admin"] }] };
const withConfig = (patch: Record<string, unknown>) => JSON.stringify({ ...base, ...patch });

function configError(input: unknown): string {
  try {
    typeof input === "string" ? parseTenantConfig(input) : checkTenant(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("tenant configuration", () => {
  it("fills in the default limits and empty lists", () => {
    const config = parseTenantConfig(JSON.stringify(base));
    expect(config.limits).toEqual({ maxBodyBytes: 1024 * 1024, maxCallsPerBatch: 128, bodyTimeoutMs: 10_000 });
    expect(config).toMatchObject({
      deny: [],
      consoleOrigins: [],
      secrets: {},
      policies: {},
      readOnlyRecords: "before-answer",
    });
  });

  it("takes when read-only records are stored, and names a wrong value", () => {
    expect(parseTenantConfig(withConfig({ readOnlyRecords: "after-answer" })).readOnlyRecords).toBe("after-answer");
    expect(configError(withConfig({ readOnlyRecords: "later" }))).toMatch(
      /readOnlyRecords: must be "before-answer" or "after-answer"/,
    );
  });

  it("names the field in every error", () => {
    expect(configError("{nope")).toMatch(/^TOOLGATE_CONFIG is not valid JSON/);
    expect(configError(withConfig({ keys: [{ name: "ops", hash: "abc", scopes: ["admin"] }] }))).toMatch(
      /keys\[0\]\.hash: must be the SHA-256 of the key as 64 lowercase hex/,
    );
    expect(configError(withConfig({ keys: [{ name: "ops", hash: HASH, scopes: ["root"] }] }))).toMatch(
      /keys\[0\]\.scopes\[0\]: must be "call" or "admin"/,
    );
    expect(configError(withConfig({ limits: { maxCallsPerBatch: 0 } }))).toMatch(
      /limits\.maxCallsPerBatch: must be at least 1/,
    );
    expect(configError(withConfig({ consoleOrigins: ["https://x.example/console"] }))).toMatch(
      /consoleOrigins\[0\]: must be an origin/,
    );
    expect(configError(withConfig({ policies: { add: { timeoutMs: -5 } } }))).toMatch(/policies\.add\.timeoutMs/);
    expect(configError(withConfig({ tols: [] }))).toMatch(/tols/);
    expect(configError(JSON.stringify({ ...base, keys: [] }))).toMatch(/keys: must hold at least one key/);
    expect(configError(withConfig({ keys: [base.keys[0], base.keys[0]] }))).toMatch(
      /keys\[1\]\.name: duplicate key name "ops"/,
    );
  });

  it("checks tool names against the catalogue and the tenant's own tools", () => {
    expect(configError({ ...base, tools: ["add", "teleport"] })).toContain(
      `tools[1]: unknown tool "teleport" (known: ${[...CATALOG.keys()].join(", ")})`,
    );
    expect(configError({ ...base, deny: ["sleep"] })).toMatch(/deny: "sleep" is not one of the tenant's tools/);
    expect(configError({ ...base, policies: { sleep: { timeoutMs: 5 } } })).toMatch(/policies: "sleep" is not one of/);
  });

  it("lays policy overrides over the tool's own policy", () => {
    const tenant = createTenant({
      ...base,
      tools: ["sleep"],
      policies: { sleep: { concurrency: { limit: 2 }, risk: "medium" } },
    });
    const sleep = tenant.registry.get("sleep")!;
    expect(sleep.policy.concurrency).toEqual({ limit: 2 });
    expect(sleep.policy.risk).toBe("medium");
    expect(sleep.policy.idempotent).toBe(true); // kept from the tool
  });

  it("checks a gate's key pointer and maxWaitMs with a readable error", () => {
    const gate = (concurrency: Record<string, unknown>) => ({
      ...base,
      tools: ["sleep"],
      policies: { sleep: { concurrency: { limit: 1, ...concurrency } } },
    });
    expect(configError(gate({ key: "ms" }))).toContain(
      "policies.sleep.concurrency.key: " +
        'must be "@user" or a JSON Pointer into the arguments (RFC 6901, at most 256 characters), like "/repo"',
    );
    const keyError = /policies\.sleep\.concurrency\.key: must be "@user" or a JSON Pointer/;
    expect(configError(gate({ key: "/a~2" }))).toMatch(keyError);
    // A part of an array is named by its index.
    expect(configError(gate({ key: ["@user", "ms"] }))).toMatch(/concurrency\.key\[1\]: must be "@user" or a JSON/);
    expect(() => checkTenant(gate({ key: ["@user", "/ms"] }))).not.toThrow();
    expect(configError(gate({ key: "/mss" }))).toContain(
      'policies.sleep: Tool "sleep": invalid policy.concurrency.key "/mss": ' +
        'the arguments declare no property "mss" (declared: ms)',
    );
    expect(configError(gate({ maxWaitMs: -1 }))).toMatch(/policies\.sleep\.concurrency\.maxWaitMs/);
    const http = (key: string) => ({
      ...base,
      http: [
        {
          name: "get_repo",
          description: "d",
          url: "https://api.example.com/repos/{owner}/{name}",
          concurrency: { limit: 1, key },
          input: { type: "object", properties: { owner: { type: "string" }, name: { type: "string" } } },
        },
      ],
    });
    expect(configError(http("/repo"))).toMatch(
      new RegExp(
        String.raw`^TOOLGATE_CONFIG is invalid: http\[0\]: Tool "get_repo": invalid policy\.concurrency\.key ` +
          String.raw`"/repo": the arguments declare no property "repo" \(declared: owner, name\)`,
      ),
    );
    expect(configError(http("owner"))).toMatch(
      /^TOOLGATE_CONFIG is invalid: http\[0\]: HTTP tool "get_repo": invalid concurrency\.key: must be "@user" or/,
    );
    const tenant = createTenant({
      ...http("/owner"),
      policies: { get_repo: { concurrency: { limit: 2, key: "/name", maxWaitMs: 0 } } },
    });
    expect(tenant.registry.get("get_repo")!.policy.concurrency).toEqual({ limit: 2, key: "/name", maxWaitMs: 0 });
  });

  it("turns deny lists and approval rules into pipeline outcomes", async () => {
    const tenant = createTenant({
      ...base,
      tools: ["add", "echo", "fail"],
      deny: ["fail"],
      requireApprovalFor: { tools: ["echo"] },
    });
    const options = { registry: tenant.registry, hooks: tenant.hooks, tenant: tenant.name };
    const add = await executeCall({ id: "c1", name: "add", arguments: { a: 1, b: 2 } }, options);
    const echo = await executeCall({ id: "c2", name: "echo", arguments: { text: "hi" } }, options);
    const fail = await executeCall({ id: "c3", name: "fail", arguments: { message: "x" } }, options);
    expect(add.ok).toBe(true);
    expect(echo.ok ? "ok" : echo.error.code).toBe("approval_required");
    expect(fail.ok ? "ok" : fail.error.code).toBe("denied");
  });

  it("requires approval by risk level", async () => {
    const tenant = createTenant({
      ...base,
      tools: ["add"],
      policies: { add: { risk: "high" } },
      requireApprovalFor: { risk: ["high"] },
    });
    const add = await executeCall(
      { id: "c1", name: "add", arguments: { a: 1, b: 2 } },
      { registry: tenant.registry, hooks: tenant.hooks },
    );
    expect(add.ok ? "ok" : add.error.code).toBe("approval_required");
  });

  it("resolves secrets by reference and names a missing one", () => {
    const config = parseTenantConfig(withConfig({ secrets: { API_TOKEN: "ACME_API_TOKEN" } }));
    expect(resolveSecrets(config, { ACME_API_TOKEN: "s3cret-value" })).toEqual({ API_TOKEN: "s3cret-value" });
    expect(() => resolveSecrets(config, {})).toThrow(/secrets\.API_TOKEN: the Worker secret ACME_API_TOKEN is not set/);
  });
});

describe("configuration through the app", () => {
  it("answers a JSON 500 naming the bad field, on every route", async () => {
    const bad = withConfig({ limits: { maxBodyBytes: "big" } });
    for (const path of ["/healthz", "/v1/tools/openai"]) {
      const res = await request(path, { env: { TOOLGATE_CONFIG: bad } });
      expect(res.status).toBe(500);
      const body = await json(res);
      expect(body.error.code).toBe("config_invalid");
      expect(body.error.message).toMatch(/limits\.maxBodyBytes: Invalid type: Expected number/);
    }
  });

  it("never falls back to the demo tenant outside the demo environment", async () => {
    const res = await request("/v1/tools/openai", { env: { TOOLGATE_DEMO: undefined } });
    expect(res.status).toBe(500);
    expect((await json(res)).error.message).toMatch(/TOOLGATE_CONFIG is not set/);
  });

  it("serves another tenant from TOOLGATE_CONFIG with its own keys", async () => {
    const config = withConfig({ keys: [{ name: "ops", hash: sha256Hex("acme-key"), scopes: ["call"] }] });
    const demoKey = await request("/v1/whoami", { env: { TOOLGATE_CONFIG: config } });
    expect(demoKey.status).toBe(401);
    const own = await request("/v1/whoami", { key: "acme-key", env: { TOOLGATE_CONFIG: config } });
    expect(await json(own)).toEqual({ tenant: "acme", key: { name: "ops", scopes: ["call"] } });
  });
});
