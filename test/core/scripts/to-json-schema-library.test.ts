import * as v from "valibot";
import { expect, it } from "vitest";
import { valibotToJsonSchema } from "../../../src/schema/valibot";
import {
  loadToJsonSchemaLibrary,
  toJsonSchema,
  toJsonSchemaLibraryLoaded,
} from "../../../worker/to-json-schema-library";

// What wrangler.toml's [alias] puts in @valibot/to-json-schema's place in the Worker's bundle.
it("stands in for valibot's JSON Schema converter: a clear error before it is loaded, the package's after", async () => {
  const schema = v.object({ id: v.pipe(v.string(), v.minLength(3)) });
  expect(toJsonSchemaLibraryLoaded()).toBe(false);
  expect(() => toJsonSchema(schema)).toThrow(/The JSON Schema converter is not loaded/);
  await loadToJsonSchemaLibrary();
  expect(toJsonSchemaLibraryLoaded()).toBe(true);
  const converted = toJsonSchema(schema, { target: "draft-2020-12", errorMode: "throw", typeMode: "input" });
  expect({ ...converted, $schema: undefined }).toEqual({ ...valibotToJsonSchema(schema, "t"), $schema: undefined });
  expect(() => toJsonSchema(v.date(), { errorMode: "throw" })).toThrow(/date/);
});
