import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderTenantModule } from "../../../scripts/tenant-files";
import {
  envDurableObjects,
  envKvNamespaces,
  envNames,
  readTopLevel,
  renderTenantEnv,
} from "../../../scripts/tenant-toml";

const SAMPLE = `name = "toolgate"
main = "worker/index.ts"

[vars]
TOOLGATE_DEMO = "true"
LEDGER_SHARDS = "4"

[[durable_objects.bindings]]
name = "GATES"
class_name = "Gate"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["Gate"]

[[durable_objects.bindings]]
name = "LEDGER"
class_name = "Ledger"

[[kv_namespaces]]
binding = "OAUTH_KV"
id = "0123456789abcdef"
`;

describe("tenant environments in wrangler.toml", () => {
  it("reads the top-level vars, Durable Object bindings and KV namespaces", () => {
    expect(readTopLevel(SAMPLE)).toEqual({
      vars: ['TOOLGATE_DEMO = "true"', 'LEDGER_SHARDS = "4"'],
      durableObjects: [
        ['name = "GATES"', 'class_name = "Gate"'],
        ['name = "LEDGER"', 'class_name = "Ledger"'],
      ],
      kvNamespaces: [['binding = "OAUTH_KV"', 'id = "0123456789abcdef"']],
    });
  });

  it("renders a tenant block with its own entry module that repeats them, with the demo switched off", () => {
    const toml = SAMPLE + renderTenantEnv("acme", readTopLevel(SAMPLE));
    expect(envNames(toml)).toEqual(["acme"]);
    expect(envDurableObjects(toml, "acme")).toEqual(["GATES", "LEDGER"]);
    // Its own KV namespace: the top level's id is not repeated (deploy provisions one per environment).
    expect(envKvNamespaces(toml, "acme")).toEqual(["OAUTH_KV"]);
    expect(toml).toContain(`[[env.acme.kv_namespaces]]\nbinding = "OAUTH_KV"\n`);
    expect(toml.match(/0123456789abcdef/g)).toHaveLength(1);
    expect(toml).toContain(
      `[env.acme]\nmain = "tenants/acme.ts"\n\n[env.acme.vars]\nTOOLGATE_DEMO = "false"\nLEDGER_SHARDS = "4"\n\n` +
        `[[env.acme.durable_objects.bindings]]`,
    );
    // The configuration is bundled from tenants/acme.json, never a (5 KB-capped) var.
    expect(toml).not.toContain("TOOLGATE_CONFIG");
    // Adding the block changes nothing at the top level.
    expect(readTopLevel(toml)).toEqual(readTopLevel(SAMPLE));
  });

  it("keeps every tenant of the real wrangler.toml in step with the top level", () => {
    const toml = readFileSync("wrangler.toml", "utf8");
    const top = readTopLevel(toml);
    const topBindings = top.durableObjects.map((lines) =>
      lines.find((l) => l.startsWith("name"))!.replace(/^name\s*=\s*"(.*)"$/, "$1"),
    );
    const topKv = top.kvNamespaces.map((lines) =>
      lines.find((l) => l.startsWith("binding"))!.replace(/^binding\s*=\s*"(.*)"$/, "$1"),
    );
    expect(topKv).toContain("OAUTH_KV");
    expect(topBindings).toContain("IDENTITY");
    expect(envDurableObjects(renderTenantEnv("newco", top), "newco")).toEqual(topBindings);
    expect(envNames(toml)).toContain("acme");
    for (const env of envNames(toml)) {
      // Environments inherit no bindings: a tenant missing one would crash on its first call.
      expect(envDurableObjects(toml, env).sort(), `[env.${env}] Durable Object bindings`).toEqual(
        [...topBindings].sort(),
      );
      expect(envKvNamespaces(toml, env).sort(), `[env.${env}] KV namespaces`).toEqual([...topKv].sort());
      // Among them the Identity object (issue 29), which tenant:add writes like any other.
      expect(envDurableObjects(toml, env), `[env.${env}] IDENTITY`).toContain("IDENTITY");
      // Its Worker bundles its configuration: the entry module exists and is the generated one.
      expect(toml, `[env.${env}] main`).toContain(`[env.${env}]\nmain = "tenants/${env}.ts"\n`);
      expect(readFileSync(`tenants/${env}.ts`, "utf8")).toBe(renderTenantModule(env));
    }
  });
});
