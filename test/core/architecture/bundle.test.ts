import { build } from "esbuild";
import { builtinModules } from "node:module";
import { expect, it } from "vitest";
import { CATALOG } from "../../../worker/tenant/catalog";
import { GATE_FIXTURE_TOOLS } from "../../fixtures/tools/gates";
import { MCP_FIXTURE_TOOLS } from "../../fixtures/tools/mcp";

it("the core bundles for the browser with no Node built-ins", async () => {
  const result = await build({
    entryPoints: ["src/index.ts"],
    bundle: true,
    platform: "browser",
    format: "esm",
    write: false,
    metafile: true,
    minify: true,
    logLevel: "silent",
  });
  expect(result.errors).toEqual([]);
  const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports.map((i) => i.path));
  const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
  expect(imports.filter((path) => builtins.has(path))).toEqual([]);
  const code = result.outputFiles[0]!.text;
  expect(code).not.toMatch(/\brequire\(["']node:/);
  expect(code).not.toMatch(/\bprocess\.env\b/);
  // Workers forbid code generation at run time.
  expect(code).not.toMatch(/\bnew Function\(|\beval\(/);
});

/**
 * The Worker's entry built as wrangler builds it (wrangler.toml main; tenants' entries re-export it),
 * the library modules left to their dynamic imports as wrangler leaves them. Once per run.
 */
let built: ReturnType<typeof buildWorker> | undefined;
function buildWorker() {
  return build({
    entryPoints: ["worker/index.ts"],
    bundle: true,
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    external: ["cloudflare:*", "*.generated.mjs"],
    format: "esm",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
}
const workerBundle = () => (built ??= buildWorker());

it("the Worker's bundle ships no test-only tool (they live in the test catalogue)", async () => {
  const result = await workerBundle();
  expect(result.errors).toEqual([]);
  const code = result.outputFiles[0]!.text;
  const shipped = (name: string) => code.includes(JSON.stringify(name));
  expect([...CATALOG.keys()].filter((name) => !shipped(name))).toEqual([]);
  expect([...MCP_FIXTURE_TOOLS, ...GATE_FIXTURE_TOOLS].map((tool) => tool.name).filter(shipped)).toEqual([]);
});

it("the Worker's bundle reaches the identity library only through its module (worker/identity/lazy/, jose, oauth4webapi)", async () => {
  const reached = Object.keys((await workerBundle()).metafile.inputs);
  expect(reached.some((input) => input.startsWith("worker/identity/"))).toBe(true);
  expect(
    reached.filter((input) => /^worker\/identity\/lazy\/|node_modules\/(jose|oauth4webapi)\//.test(input)),
  ).toEqual([]);
});

it("the Worker's bundle reaches tool search's index builder and ranker only through its module", async () => {
  const reached = Object.keys((await workerBundle()).metafile.inputs);
  expect(reached.some((input) => input.startsWith("worker/search/"))).toBe(true);
  // Only the limits (the search tool's input schema): src/search/ is otherwise the module's.
  expect(reached.filter((input) => /^worker\/search\/lazy\/|^src\/search\//.test(input))).toEqual([
    "src/search/limits.ts",
  ]);
});

it("the Worker's bundle holds of the remote MCP client only the `mcp` declaration's schema", async () => {
  const { metafile } = await workerBundle();
  const [output] = Object.values(metafile.outputs);
  // src/index.ts (which code tools import) reaches the client; tree-shaking leaves at most a constant of a file.
  const held = Object.entries(output!.inputs)
    .filter(([input, { bytesInOutput }]) => input.startsWith("src/adapters/mcp/") && bytesInOutput > 200)
    .map(([input]) => input);
  expect(held).toEqual(["src/adapters/mcp/declaration.ts"]);
});
