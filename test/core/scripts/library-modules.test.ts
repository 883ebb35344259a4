import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, expect, it } from "vitest";
import { IDENTITY_MODULE, identityInputAllowed, writeIdentityModule } from "../../../scripts/identity-module.mjs";
import {
  CONNECTIONS_MODULE,
  connectionsInputAllowed,
  writeConnectionsModule,
} from "../../../scripts/connections-module.mjs";
import { JSON_SCHEMA_MODULE } from "../../../scripts/json-schema-module.mjs";
import { OAUTH_MODULE } from "../../../scripts/oauth-module.mjs";
import { SEARCH_MODULE, searchInputAllowed, writeSearchModule } from "../../../scripts/search-module.mjs";
import { ENDPOINTS_MODULE } from "../../../scripts/endpoints-module.mjs";
import { TELEMETRY_MODULE, telemetryInputAllowed, writeTelemetryModule } from "../../../scripts/telemetry-module.mjs";
import { TO_JSON_SCHEMA_MODULE } from "../../../scripts/to-json-schema-module.mjs";
import {
  CONFIG_BLOCKS_MODULE,
  configBlocksInputAllowed,
  writeConfigBlocksModule,
} from "../../../scripts/config-blocks-module.mjs";
import { CODE_MODE_MODULE, codeModeInputAllowed, writeCodeModeModule } from "../../../scripts/code-mode-module.mjs";
import { REMOTE_MCP_MODULE, remoteMcpInputAllowed, writeRemoteMcpModule } from "../../../scripts/remote-mcp-module.mjs";

const out = join(".tmp", `library-modules-${crypto.randomUUID().slice(0, 8)}`);
afterAll(() => rmSync(out, { recursive: true, force: true }));

/**
 * Each library module: its upload name, the module the repository's script wrote, and a string of its
 * own code that no other module holds.
 */
const MODULES = [
  // The OAuth library's CIMD warning.
  ["oauth/provider.generated.mjs", OAUTH_MODULE, "CIMD (Client ID Metadata Document) is disabled"],
  // An error the JSON Schema validator reports.
  ["json-schema/library.generated.mjs", JSON_SCHEMA_MODULE, "Instance does not match"],
  // jose's error for a token naming no key of the set.
  ["identity/library.generated.mjs", IDENTITY_MODULE, "no applicable key found in the JSON Web Key Set"],
  // Tool search's answer when no tool matches.
  ["search/library.generated.mjs", SEARCH_MODULE, "no tool matches these words"],
  // A curated endpoint's refusal of a search tool named like one of its tools.
  ["endpoints/library.generated.mjs", ENDPOINTS_MODULE, "is one of the endpoint's tools; choose another"],
  // The resource attribute counting dropped spans.
  ["telemetry/library.generated.mjs", TELEMETRY_MODULE, "toolgate.telemetry.dropped_spans"],
  // The connect page's refusal.
  ["connections/library.generated.mjs", CONNECTIONS_MODULE, "No connect is under way in this browser"],
  // The converter's refusal of an action JSON Schema cannot express.
  ["to-json-schema/library.generated.mjs", TO_JSON_SCHEMA_MODULE, " action is not supported on type "],
  // The identity block's refusal of both sign-ins at once.
  ["config-blocks/library.generated.mjs", CONFIG_BLOCKS_MODULE, "oidc and access cannot both be set"],
  // The sandbox's answer when the program waits on nothing.
  ["code-mode/library.generated.mjs", CODE_MODE_MODULE, "it waits on nothing that can happen"],
  // The remote MCP client's refusal of a tool its server stopped offering.
  ["remote-mcp/library.generated.mjs", REMOTE_MCP_MODULE, "no longer offers the tool"],
] as const;

// The demo (the top-level environment, entry worker/index.ts) and a tenant's (entry tenants/acme.ts).
it.each([
  ["", "index.js"],
  ["acme", "acme.js"],
])(
  "wrangler uploads the OAuth, JSON Schema, identity, search, telemetry and connections libraries, the JSON Schema converter, the configuration blocks' schemas, code mode, the remote MCP client and curated endpoints as modules of their own, which the bundle imports only when asked (env %j)",
  (env, main) => {
    const node = existsSync("node_modules/node/bin/node") ? resolve("node_modules/node/bin/node") : process.execPath;
    const dir = join(out, env || "top");
    const built = spawnSync(
      node,
      ["node_modules/wrangler/bin/wrangler.js", "deploy", "--dry-run", "--outdir", dir, "--env", env],
      { encoding: "utf8" },
    );
    expect(built.status, built.stderr).toBe(0);
    const bundle = readFileSync(join(dir, main), "utf8");
    for (const [upload, written, text] of MODULES) {
      const uploaded = readFileSync(join(dir, upload), "utf8");
      expect(uploaded).toContain(text);
      expect(uploaded).toBe(readFileSync(written, "utf8"));
      // Not in the bundle workerd compiles at startup: reached by one dynamic import, at its upload name.
      expect(bundle).not.toContain(text);
    }
    // A tenant's bundle imports one more module on first use: its precomputed listings, a text module
    // wrangler uploads under a content-hashed name (the build command wrote it).
    const imported = bundle
      .match(/import\("[^"]*"\)/g)!
      .map((call) => call.slice('import("'.length, -'")'.length))
      .sort();
    const libraries = MODULES.map(([upload]) => `./${upload}`).sort();
    const listings = imported.filter((path) => /^\.\/[0-9a-f]{40}-acme\.listings\.generated\.txt$/.test(path));
    expect(imported.filter((path) => !listings.includes(path))).toEqual(libraries);
    expect(listings).toHaveLength(env ? 1 : 0);
    if (env)
      expect(readFileSync(join(dir, listings[0]!), "utf8")).toBe(
        readFileSync("tenants/acme.listings.generated.txt", "utf8"),
      );
  },
  120_000,
);

// The bundle's side (nothing of it imported statically): test/core/architecture/bundle.test.ts.
it("builds the identity library's module from the libraries and worker/identity/lazy/ alone", async () => {
  const { inputs } = await writeIdentityModule();
  expect(inputs.filter((input) => !identityInputAllowed(input))).toEqual([]);
  expect(inputs.some((input) => input.startsWith("node_modules/jose/"))).toBe(true);
  expect(inputs.some((input) => input.startsWith("worker/identity/lazy/"))).toBe(true);
  expect(identityInputAllowed("worker/errors.ts")).toBe(false);
}, 60_000);

it("builds code mode's module from worker/code-mode/lazy/ alone", async () => {
  const { inputs } = await writeCodeModeModule();
  expect(inputs.filter((input) => !codeModeInputAllowed(input))).toEqual([]);
  expect(inputs).toContain("worker/code-mode/lazy/sandbox.ts");
  expect(codeModeInputAllowed("src/errors.ts")).toBe(false);
}, 60_000);

it("builds tool search's module from src/search/ and worker/search/lazy/ alone", async () => {
  const { inputs } = await writeSearchModule();
  expect(inputs.filter((input) => !searchInputAllowed(input))).toEqual([]);
  expect(inputs).toContain("src/search/bm25.ts");
  expect(searchInputAllowed("src/json.ts")).toBe(false);
}, 60_000);

it("builds the telemetry library's module from worker/telemetry/lazy/ and src/telemetry/ alone", async () => {
  const { inputs } = await writeTelemetryModule();
  expect(inputs.some((input) => input.startsWith("worker/telemetry/lazy/"))).toBe(true);
  expect(inputs.some((input) => input.startsWith("src/telemetry/"))).toBe(true);
  expect(inputs.every((input) => telemetryInputAllowed(input))).toBe(true);
});

it("builds the connections library's module from oauth4webapi and worker/connections/lazy/ alone", async () => {
  const { inputs } = await writeConnectionsModule();
  expect(inputs.filter((input) => !connectionsInputAllowed(input))).toEqual([]);
  expect(inputs.some((input) => input.startsWith("node_modules/oauth4webapi/"))).toBe(true);
  expect(inputs.some((input) => input.startsWith("worker/connections/lazy/"))).toBe(true);
  expect(connectionsInputAllowed("worker/errors.ts")).toBe(false);
}, 60_000);

it("builds the configuration blocks' module from valibot, their schemas and field helpers alone", async () => {
  const { inputs } = await writeConfigBlocksModule();
  expect(inputs.filter((input) => !configBlocksInputAllowed(input))).toEqual([]);
  expect(inputs).toContain("worker/identity/config.ts");
  expect(inputs.some((input) => input.startsWith("node_modules/valibot/"))).toBe(true);
  expect(configBlocksInputAllowed("worker/errors.ts")).toBe(false);
}, 60_000);

it("builds the remote MCP client's module from src/adapters/mcp/ and stateless core helpers, the validator the Worker's", async () => {
  const { inputs, path } = await writeRemoteMcpModule();
  expect(inputs.filter((input) => !remoteMcpInputAllowed(input))).toEqual([]);
  // It imports nothing, so it loads wherever a package puts it.
  expect(readFileSync(path, "utf8")).not.toMatch(/\bimport\s*[{*"]|\bfrom\s*"/);
  expect(inputs).toContain("src/adapters/mcp/client.ts");
  // One validator per isolate: the Worker's, handed over; not a copy of the package.
  expect(inputs).toContain("worker/remote-mcp/lazy/validator.ts");
  expect(inputs.some((input) => input.includes("@cfworker/json-schema"))).toBe(false);
  expect(remoteMcpInputAllowed("worker/errors.ts")).toBe(false);
}, 60_000);
