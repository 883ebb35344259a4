import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { formatConfig, renderTenantModule, TENANTS_DIR } from "../../../scripts/tenant-files";
import { createTenant } from "../../../worker/tenant/tenant";

describe("tenant files", () => {
  it("writes the configuration as indented JSON with plain lists on one line", () => {
    const config = {
      name: "acme",
      tools: ["add", "echo"],
      keys: [{ name: "admin", hash: "ab", scopes: ["admin"] }],
      secrets: {},
    };
    const text = formatConfig(config);
    expect(JSON.parse(text)).toEqual(config);
    expect(text).toContain(`\n  "tools": ["add", "echo"],\n`);
    expect(text).toContain(`\n      "scopes": ["admin"]\n`);
    expect(text.endsWith("}\n")).toBe(true);
  });

  it("renders an entry module that bundles the tenant's JSON into the kit's Worker", () => {
    const module = renderTenantModule("acme");
    expect(module).toContain(`import config from "./acme.json";`);
    // Built from the kit's public entry points, with its listings precomputed by the build, imported on
    // the first listing (a text module).
    expect(module).toContain(`import { createToolgate } from "toolgate/worker";`);
    expect(module).toContain(
      `tenant: { config, source: "tenants/acme.json", listings: () => import("./acme.listings.generated.txt") },`,
    );
    expect(module).toContain(
      "export { AdapterPins, Connections, Gate, GateIndex, Identity, Keys, Ledger, Upstream } " +
        'from "toolgate/worker/objects";',
    );
    expect(module).toContain(`export default toolgate;`);
  });

  // Every tenant's configuration passes the checks its Worker runs, so a bad one fails CI, not a deploy.
  const files = readdirSync(TENANTS_DIR).filter((file) => file.endsWith(".json"));
  it("has the example tenant", () => expect(files).toContain("acme.json"));
  it.each(files)("tenants/%s is a valid tenant configuration", (file) => {
    const path = `${TENANTS_DIR}/${file}`;
    const tenant = createTenant(readFileSync(path, "utf8"), undefined, path);
    expect(tenant.name, "its name is its file's").toBe(file.replace(/\.json$/, ""));
    expect(readFileSync(path.replace(/\.json$/, ".ts"), "utf8")).toBe(renderTenantModule(tenant.name));
  });
});
