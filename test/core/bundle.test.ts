import { build } from "esbuild";
import { builtinModules } from "node:module";
import { expect, it } from "vitest";

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
