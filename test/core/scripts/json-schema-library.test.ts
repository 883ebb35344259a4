import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";
import { JSON_SCHEMA_MODULE, writeJsonSchemaModule } from "../../../scripts/json-schema-module.mjs";
import { jsonSchemaLibraryLoaded, loadJsonSchemaLibrary, Validator } from "../../../worker/json-schema-library";

// What wrangler.toml's [alias] puts in @cfworker/json-schema's place in the Worker's bundle.
it("stands in for the JSON Schema validator: a clear error before it is loaded, the package's validator after", async () => {
  expect(jsonSchemaLibraryLoaded()).toBe(false);
  expect(() => new Validator({ type: "object" })).toThrow(/The JSON Schema library is not loaded/);
  await loadJsonSchemaLibrary();
  expect(jsonSchemaLibraryLoaded()).toBe(true);
  const validator = new Validator(
    { type: "object", $defs: { id: { type: "string", minLength: 3 } }, properties: { id: { $ref: "#/$defs/id" } } },
    "2020-12",
    false,
  );
  expect(validator.validate({ id: "abc" }).valid).toBe(true);
  const refused = validator.validate({ id: "ab" });
  expect(refused.valid).toBe(false);
  expect(refused.errors.map((e) => e.instanceLocation)).toContain("#/id");
});

// A fresh clone has no worker/json-schema/ folder: `npm install`'s postinstall must create it.
it("writes the validator's module into a checkout that has no folder for it yet", async () => {
  const root = mkdtempSync(join(tmpdir(), "toolgate-json-schema-"));
  try {
    writeFileSync(join(root, "package.json"), "{}");
    symlinkSync(resolve("node_modules"), join(root, "node_modules"), "dir");
    const { path, changed } = await writeJsonSchemaModule(root);
    expect(changed).toBe(true);
    expect(path).toBe(join(root, JSON_SCHEMA_MODULE));
    expect(readFileSync(path, "utf8")).toContain("Instance does not match");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
