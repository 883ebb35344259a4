import { describe, expect, it } from "vitest";
import type { BundledConfig } from "../../../worker/tenant/bundled-config";
import { ConfigError } from "../../../worker/errors";
import { loadTenant } from "../../../worker/tenant/tenant";
import { tenantConfig } from "../helpers/requests";

// The bundled configuration is passed explicitly: registering one (useBundledConfig) would change
// the tenant of every other test sharing this isolate.
const bundle = (config: unknown, source = "tenants/bundled.json"): BundledConfig => ({ config, source });
const bundled = bundle(JSON.parse(tenantConfig({ name: "bundled" })));

function loadError(env: Record<string, unknown>, from?: BundledConfig): string {
  try {
    loadTenant(env, from);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("where a tenant's configuration comes from", () => {
  it("uses the bundled configuration when no TOOLGATE_CONFIG is set, parsed once", () => {
    const tenant = loadTenant({ TOOLGATE_DEMO: "false" }, bundled);
    expect(tenant.name).toBe("bundled");
    expect(loadTenant({ TOOLGATE_CONFIG: "" }, bundled)).toBe(tenant);
  });

  it("lets TOOLGATE_CONFIG override the bundled configuration", () => {
    expect(loadTenant({ TOOLGATE_CONFIG: tenantConfig({ name: "from-var" }) }, bundled).name).toBe("from-var");
  });

  it("prefers the bundled configuration to the demo", () => {
    expect(loadTenant({ TOOLGATE_DEMO: "true" }, bundled).name).toBe("bundled");
    expect(loadTenant({ TOOLGATE_DEMO: "true" }, undefined).name).toBe("demo");
  });

  it("refuses to start without any configuration outside the demo", () => {
    expect(loadError({ TOOLGATE_DEMO: "false" }, undefined)).toMatch(
      /^TOOLGATE_CONFIG is not set and no configuration is bundled/,
    );
  });

  it("names the bundled file in its errors, whichever check fails", () => {
    const { keys } = JSON.parse(tenantConfig());
    expect(loadError({}, bundle({ name: "x", tools: ["add"], keys: [] }, "tenants/x.json"))).toMatch(
      /^tenants\/x\.json is invalid: keys: /,
    );
    expect(loadError({}, bundle({ name: "x", tools: ["teleport"], keys }, "tenants/x.json"))).toMatch(
      /^tenants\/x\.json is invalid: tools\[0\]: unknown tool "teleport"/,
    );
    const http = [{ name: "w", description: "d", url: "ftp://x.example/w" }];
    expect(loadError({}, bundle({ name: "x", tools: [], keys, http }, "tenants/x.json"))).toMatch(
      /^tenants\/x\.json is invalid: http\[0\]: /,
    );
    // The var keeps its own name.
    expect(loadError({ TOOLGATE_CONFIG: JSON.stringify({ name: "x", tools: ["teleport"], keys }) }, bundled)).toMatch(
      /^TOOLGATE_CONFIG is invalid: tools\[0\]/,
    );
  });
});
