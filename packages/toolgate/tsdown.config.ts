import { defineConfig } from "tsdown";

/**
 * The package `toolgate`, built from the repository's sources: ESM and declarations, a file per entry
 * point (package.json `exports`) at dist/'s root, and every source module at its own path beside them.
 */

/** What the Worker kit loads on first use stays a module of its own, at the same path beside the bundle. */
const LAZY_LIBRARIES = [
  "json-schema",
  "identity",
  "search",
  "telemetry",
  "connections",
  "to-json-schema",
  "config-blocks",
  "code-mode",
  "remote-mcp",
  "endpoints",
].join("|");
const LAZY_MODULE = new RegExp(`^\\./(oauth/provider|(${LAZY_LIBRARIES})/library)\\.generated\\.mjs$`);
/** The repository's catalogue of tools/: a project hands the kit its own tools, so the package has none. */
const CATALOG_MODULE = /\/catalog\.generated(\.ts)?$/;
const EMPTY_CATALOG = "export const TOOL_FILES = [];\nexport const BUILD_FAILURE = undefined;\n";
/** Nor the JSON Schemas a build precomputed for them: a project's tools are converted on first use. */
const TOOL_SCHEMAS_MODULE = /\/tool-schemas\.generated(\.ts)?$/;
const NO_TOOL_SCHEMAS = "export const TOOL_SCHEMAS = undefined;\n";

export default defineConfig({
  entry: {
    index: "../../src/index.ts",
    client: "../../src/client/index.ts",
    worker: "../../worker/kit.ts",
    "worker-objects": "../../worker/objects.ts",
    "json-schema-library": "../../worker/json-schema-library.ts",
    "to-json-schema-library": "../../worker/to-json-schema-library.ts",
    "ai-sdk": "../../src/sdk/ai-sdk.ts",
    "openai-agents": "../../src/sdk/openai-agents.ts",
  },
  outDir: "dist",
  format: "esm",
  platform: "neutral",
  target: "es2022",
  tsconfig: "./tsconfig.json",
  dts: true,
  clean: true,
  treeshake: true,
  // dist/ mirrors the sources, one module per file: an app's bundler keeps only the modules it uses
  // (sideEffects: false), where shared chunks would bring along everything they hold.
  unbundle: true,
  // The declarations plugin's time is no news on every build.
  inputOptions: { checks: { bundlerTimings: false } },
  // Every dependency stays an import (package.json dependencies and peers), as does the Workers runtime.
  deps: { neverBundle: [/^cloudflare:/] },
  plugins: [
    {
      name: "toolgate-lazy-modules",
      resolveId(id) {
        if (LAZY_MODULE.test(id)) return { id, external: true };
        if (CATALOG_MODULE.test(id)) return "\0toolgate-empty-catalog";
        if (TOOL_SCHEMAS_MODULE.test(id)) return "\0toolgate-no-tool-schemas";
        return null;
      },
      load(id) {
        if (id === "\0toolgate-empty-catalog") return EMPTY_CATALOG;
        return id === "\0toolgate-no-tool-schemas" ? NO_TOOL_SCHEMAS : null;
      },
    },
  ],
});
