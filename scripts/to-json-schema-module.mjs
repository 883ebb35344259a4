// valibot's JSON Schema converter (@valibot/to-json-schema) as a module of the Worker's own, apart from
// its bundle, as the JSON Schema validator is (scripts/json-schema-module.mjs): wrangler.toml's [alias]
// puts worker/to-json-schema-library.ts in the package's place. The build precomputes the JSON Schemas
// of the code tools of tools/ (worker/tenant/tool-schemas.generated.ts), so only a tool the build did not
// see (an app's, the search tool) makes a Worker load it. Writes worker/to-json-schema/library.generated.mjs
// (git-ignored) with a declaration giving it the package's types. Usage: node scripts/to-json-schema-module.mjs
import { runIfMain } from "./entry-module.mjs";
import { writePackageModule } from "./json-schema-module.mjs";

export const TO_JSON_SCHEMA_PACKAGE = "@valibot/to-json-schema";
export const TO_JSON_SCHEMA_MODULE = "worker/to-json-schema/library.generated.mjs";

/** Writes <root>/worker/to-json-schema/library.generated.mjs (and its .d.mts) from the installed package. */
export function writeToJsonSchemaModule(root = process.cwd()) {
  return writePackageModule(root, {
    pkg: TO_JSON_SCHEMA_PACKAGE,
    module: TO_JSON_SCHEMA_MODULE,
    script: "to-json-schema-module.mjs",
  });
}

await runIfMain(import.meta.url, "to-json-schema-module", () => writeToJsonSchemaModule());
