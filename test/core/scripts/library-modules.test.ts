import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, expect, it } from "vitest";
import { JSON_SCHEMA_MODULE } from "../../../scripts/json-schema-module.mjs";
import { OAUTH_MODULE } from "../../../scripts/oauth-module.mjs";

const out = join(".tmp", `library-modules-${crypto.randomUUID().slice(0, 8)}`);
afterAll(() => rmSync(out, { recursive: true, force: true }));

// A string of the library's own code (its CIMD warning), found wherever the library is.
const LIBRARY_TEXT = "CIMD (Client ID Metadata Document) is disabled";
// And one of the JSON Schema validator's (an error it reports).
const VALIDATOR_TEXT = "Instance does not match";

// The demo (the top-level environment, entry worker/index.ts) and a tenant's (entry tenants/acme.ts).
it.each([
  ["", "index.js"],
  ["acme", "acme.js"],
])(
  "wrangler uploads the OAuth library and the JSON Schema validator as modules of their own, which the bundle imports only when asked (env %j)",
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
    const library = readFileSync(join(dir, "oauth/provider.generated.mjs"), "utf8");
    expect(library).toContain(LIBRARY_TEXT);
    expect(library).toBe(readFileSync(OAUTH_MODULE, "utf8"));
    const validator = readFileSync(join(dir, "json-schema/library.generated.mjs"), "utf8");
    expect(validator).toContain(VALIDATOR_TEXT);
    expect(validator).toBe(readFileSync(JSON_SCHEMA_MODULE, "utf8"));
    // Neither is in the bundle workerd compiles at startup: each reached by one dynamic import,
    // at its module's upload name.
    expect(bundle).not.toContain(LIBRARY_TEXT);
    expect(bundle).not.toContain(VALIDATOR_TEXT);
    // A tenant's bundle imports one more module on first use: its precomputed listings, a text module
    // wrangler uploads under a content-hashed name (the build command wrote it).
    const imported = bundle
      .match(/import\("[^"]*"\)/g)!
      .map((call) => call.slice('import("'.length, -'")'.length))
      .sort();
    const libraries = ["./json-schema/library.generated.mjs", "./oauth/provider.generated.mjs"];
    expect(imported).toEqual(
      env ? [expect.stringMatching(/^\.\/[0-9a-f]{40}-acme\.listings\.generated\.txt$/), ...libraries] : libraries,
    );
    if (env)
      expect(readFileSync(join(dir, imported[0]!), "utf8")).toBe(
        readFileSync("tenants/acme.listings.generated.txt", "utf8"),
      );
  },
  120_000,
);
