import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonSchemaValidator } from "../../../src/schema/json-schema";
import type { JsonSchema } from "../../../src/json";

/**
 * The argument validator of configured and remote tools (schemas from tenants and MCP servers, values
 * from models): building it either works or throws a TypeError naming the schema problem, and
 * validating never throws, answering the value itself or issues with string paths and messages.
 */

const typeName = fc.constantFrom("object", "array", "string", "number", "integer", "boolean", "null");
const pattern = fc.oneof(
  fc.constantFrom("^a", "[0-9]+", "^(x|y)*$", "\\p{L}", "(", "[", "a{2,1}", "(?<n>a)\\k<n>"),
  fc.string({ maxLength: 6 }),
);

/** Schemas made of the keywords models meet, nested, with some nonsense values mixed in. */
const schema: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.boolean(),
    fc.record(
      {
        type: fc.oneof(typeName, fc.array(typeName, { maxLength: 3 }), fc.jsonValue()),
        properties: fc.dictionary(fc.string({ maxLength: 4 }), tie("node"), { maxKeys: 3 }),
        required: fc.oneof(fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }), fc.jsonValue()),
        additionalProperties: tie("node"),
        items: fc.oneof(tie("node"), fc.array(tie("node"), { maxLength: 2 })),
        prefixItems: fc.array(tie("node"), { maxLength: 2 }),
        enum: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
        const: fc.jsonValue({ maxDepth: 1 }),
        minimum: fc.oneof(fc.double(), fc.string()),
        maxLength: fc.oneof(fc.nat(5), fc.double(), fc.string()),
        pattern,
        patternProperties: fc.dictionary(pattern, tie("node"), { maxKeys: 2 }),
        format: fc.constantFrom("date-time", "email", "uri", "uuid", "ipv4", "regex", "nope"),
        anyOf: fc.array(tie("node"), { minLength: 1, maxLength: 2 }),
        oneOf: fc.array(tie("node"), { minLength: 1, maxLength: 2 }),
        allOf: fc.array(tie("node"), { minLength: 1, maxLength: 2 }),
        not: tie("node"),
        if: tie("node"),
        // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
        then: tie("node"),
        $ref: fc.constantFrom(
          "#",
          "#/$defs/a",
          "#/$defs/missing",
          "#/properties/x",
          "other.json",
          "#/definitions/a",
          "%%",
        ),
        $defs: fc.record({ a: tie("node") }, { requiredKeys: [] }),
        $schema: fc.constantFrom(
          "http://json-schema.org/draft-04/schema#",
          "http://json-schema.org/draft-07/schema#",
          "https://json-schema.org/draft/2019-09/schema",
          "https://json-schema.org/draft/2020-12/schema",
          "x",
        ),
      },
      { requiredKeys: [] },
    ),
  ),
})).node;

/** A root for a tool's input: an object schema most of the time, anything now and then. */
const rootSchema = fc.oneof(
  {
    weight: 4,
    arbitrary: schema.map((s) => (typeof s === "object" && s !== null ? { ...s, type: "object" } : { type: "object" })),
  },
  { weight: 1, arbitrary: schema },
  { weight: 1, arbitrary: fc.jsonValue() },
);

const value = fc.oneof(
  fc.jsonValue(),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  fc.anything(),
);

describe("jsonSchemaValidator under random schemas and values", () => {
  it("builds or refuses with a TypeError, and validation never throws", () => {
    let built = 0;
    fc.assert(
      fc.property(rootSchema, fc.array(value, { minLength: 1, maxLength: 4 }), (s, values) => {
        let validate: ReturnType<typeof jsonSchemaValidator>;
        try {
          validate = jsonSchemaValidator(s as JsonSchema);
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
          expect((error as Error).message).toMatch(/^Invalid JSON Schema: /);
          return;
        }
        built++;
        for (const v of values) {
          const result = validate(v);
          if (result.ok) expect(result.value).toBe(v);
          else {
            expect(result.issues.length).toBeGreaterThan(0);
            expect(result.issues.length).toBeLessThanOrEqual(20);
            for (const issue of result.issues) {
              expect(typeof issue.path).toBe("string");
              expect(typeof issue.message === "string" && issue.message.length > 0).toBe(true);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
    expect(built).toBeGreaterThan(60); // many schemas were usable: values were really validated
  }, 20_000);
});
