import { expect, it } from "vitest";
import { configBlocks } from "../../../worker/config-blocks-library";
import { json, request, tenantConfig } from "../helpers/requests";

/**
 * The optional blocks' schemas (identity, search, telemetry, connections) are a module apart, which
 * readyTenant loads before it parses a configuration that may have one. Nothing in this file loads it
 * otherwise: these run in order, in the file's own isolate.
 */

it("serves a tenant without optional blocks without loading their schemas", async () => {
  const res = await request("/v1/tools", { env: { TOOLGATE_CONFIG: tenantConfig() } });
  expect(res.status).toBe(200);
  expect(configBlocks()).toBeUndefined();
});

it("loads them for a configuration with a block, and names the bad field at the first request", async () => {
  const identity = { oidc: { issuer: "ftp://idp.example", clientId: "toolgate", clientSecret: "IDP_SECRET" } };
  const res = await request("/v1/tools", { env: { TOOLGATE_CONFIG: tenantConfig({ identity }) } });
  expect(res.status).toBe(500);
  const { error } = await json(res);
  expect(error.code).toBe("config_invalid");
  expect(error.message).toMatch(/identity\.oidc\.issuer: must be https \(http only on loopback\)/);
  expect(configBlocks()).toBeDefined();
});
