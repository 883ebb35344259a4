import { expect, it } from "vitest";
import { jsonSchemaLibraryLoaded, loadJsonSchemaLibrary, Validator } from "../../worker/json-schema-library";

// What wrangler.toml's [alias] puts in @cfworker/json-schema's place in the Worker's bundle.
it("stands in for the JSON Schema validator: a clear error before it is loaded, the package's validator after", async () => {
  expect(jsonSchemaLibraryLoaded()).toBe(false);
  expect(() => new Validator({ type: "object" })).toThrow(/The JSON Schema library is not loaded/);
  await loadJsonSchemaLibrary();
  expect(jsonSchemaLibraryLoaded()).toBe(true);
  const validator = new Validator({ type: "object", $defs: { id: { type: "string", minLength: 3 } }, properties: { id: { $ref: "#/$defs/id" } } }, "2020-12", false);
  expect(validator.validate({ id: "abc" }).valid).toBe(true);
  const refused = validator.validate({ id: "ab" });
  expect(refused.valid).toBe(false);
  expect(refused.errors.map((e) => e.instanceLocation)).toContain("#/id");
});
