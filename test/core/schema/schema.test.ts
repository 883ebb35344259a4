import { describe, expect, it } from "vitest";
import * as v from "valibot";
import { Type } from "@google/genai";
import { toStrictJsonSchema } from "openai/lib/transform";
import { defineTool } from "../../../src/tool";
import { FormatSchemaError } from "../../../src/formats/format";
import { toGeminiParameters } from "../../../src/formats/gemini-schema";
import { toOpenAIParameters, toStrictSchema } from "../../../src/formats/openai-schema";
import { dropNullOptionals } from "../../../src/schema/strict-nulls";
import { jsonSchemaValidator } from "../../../src/schema/json-schema";
import type { JsonSchema } from "../../../src/json";

const tool = (input: v.GenericSchema, name = "t") => defineTool({ name, description: "d", input, run: () => "ok" });

const Booking = v.object({
  city: v.pipe(v.string(), v.minLength(1), v.description("City name")),
  nights: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
  note: v.nullable(v.string()),
  tags: v.optional(v.array(v.picklist(["quiet", "view"]))),
  guest: v.object({ name: v.string(), email: v.optional(v.pipe(v.string(), v.email())) }),
  when: v.optional(v.union([v.pipe(v.string(), v.isoDate()), v.number()])),
});

type Tree = { label: string; children?: Tree[] };
const TreeSchema: v.GenericSchema<Tree> = v.object({
  label: v.string(),
  children: v.optional(v.array(v.lazy(() => TreeSchema))),
});

describe("OpenAI strict parameters", () => {
  it("closes every object, requires every property and makes the optional ones nullable", () => {
    const { parameters, strict } = toOpenAIParameters(tool(Booking));
    expect(strict).toBe(true);
    expect(parameters).toEqual({
      type: "object",
      properties: {
        city: { type: "string", minLength: 1, description: "City name" },
        nights: { type: ["integer", "null"], minimum: 1, default: 1 },
        note: { anyOf: [{ type: "string" }, { type: "null" }] },
        tags: { type: ["array", "null"], items: { enum: ["quiet", "view"], type: "string" } },
        guest: {
          type: "object",
          properties: { name: { type: "string" }, email: { type: ["string", "null"], format: "email" } },
          required: ["name", "email"],
          additionalProperties: false,
        },
        when: { anyOf: [{ type: "string", format: "date" }, { type: "number" }, { type: "null" }] },
      },
      required: ["city", "nights", "note", "tags", "guest", "when"],
      additionalProperties: false,
    });
  });

  it("produces schemas the openai SDK's own strict transform accepts unchanged", () => {
    for (const input of [Booking, TreeSchema, v.object({})]) {
      const { parameters, strict } = toOpenAIParameters(tool(input));
      expect(strict).toBe(true);
      expect(toStrictJsonSchema(parameters as never)).toEqual(parameters);
    }
  });

  it("adds null to enums it makes nullable, so null is really accepted", () => {
    const { parameters } = toOpenAIParameters(tool(v.object({ size: v.optional(v.picklist(["s", "m"])) })));
    const size = (parameters.properties as Record<string, JsonSchema>).size!;
    expect(size).toEqual({ type: ["string", "null"], enum: ["s", "m", null] });
    expect(jsonSchemaValidator(parameters)({ size: null }).ok).toBe(true);
  });

  it("keeps recursive schemas strict and closes their definitions too", () => {
    const { parameters, strict } = toOpenAIParameters(tool(TreeSchema));
    expect(strict).toBe(true);
    const defs = parameters.$defs as Record<string, JsonSchema>;
    expect(Object.values(defs)[0]).toMatchObject({ additionalProperties: false, required: ["label", "children"] });
  });

  it("turns a discriminated union (oneOf) into anyOf", () => {
    const input = v.object({
      shape: v.variant("kind", [
        v.object({ kind: v.literal("circle"), r: v.number() }),
        v.object({ kind: v.literal("square"), side: v.number() }),
      ]),
    });
    const { parameters, strict } = toOpenAIParameters(tool(input));
    expect(strict).toBe(true);
    const shape = (parameters.properties as Record<string, JsonSchema>).shape!;
    expect(shape.oneOf).toBeUndefined();
    expect(shape.anyOf).toHaveLength(2);
  });

  it.each([
    ["an open record", v.object({ scores: v.record(v.string(), v.number()) }), /additionalProperties|propertyNames/],
    ["an object with rest", v.objectWithRest({ a: v.string() }, v.number()), /open object/],
    ["a tuple", v.object({ pair: v.tuple([v.string(), v.number()]) }), /prefixItems/],
    [
      "an intersection",
      v.object({ both: v.intersect([v.object({ a: v.string() }), v.object({ b: v.string() })]) }),
      /allOf/,
    ],
    ["an untyped value", v.object({ anything: v.unknown() }), /accepts any value/],
  ])("is honestly non-strict for %s, with the plain schema", (_label, input, reason) => {
    const t = tool(input);
    expect(toOpenAIParameters(t)).toEqual({ parameters: t.inputSchema, strict: false });
    const form = toStrictSchema(t.inputSchema);
    expect(form.ok).toBe(false);
    if (!form.ok) expect(form.reason).toMatch(reason);
  });

  it.each([
    ["an open record", v.object({ scores: v.record(v.string(), v.number()) })],
    ["an object with rest", v.objectWithRest({ a: v.string() }, v.number())],
    ["a tuple", v.object({ pair: v.tuple([v.string(), v.number()]) })],
  ])("agrees with the openai SDK that %s cannot be strict", (_label, input) => {
    expect(toOpenAIParameters(tool(input)).strict).toBe(false);
    expect(() => toStrictJsonSchema(tool(input).inputSchema as never)).toThrow();
  });

  it("names the first unsupported keyword of its list, whatever order the schema writes them in", () => {
    const schema = {
      type: "object",
      properties: { tags: { uniqueItems: true, type: "array", items: { type: "string" }, allOf: [{ minItems: 1 }] } },
    };
    expect(toStrictSchema(schema)).toEqual({ ok: false, reason: 'properties.tags uses "allOf"' });
    expect(
      toStrictSchema({
        ...schema,
        properties: { tags: { type: "array", items: { type: "string" }, uniqueItems: true } },
      }),
    ).toEqual({
      ok: false,
      reason: 'properties.tags uses "uniqueItems"',
    });
  });

  it("copies a node's own keywords, without the structural ones it rebuilds", () => {
    const schema = {
      type: "object",
      description: "d",
      $schema: "x",
      properties: { n: { type: "integer", minimum: 1, title: "N", format: "int32" } },
      required: ["n"],
    };
    expect(toStrictSchema(schema)).toEqual({
      ok: true,
      schema: {
        type: "object",
        description: "d",
        properties: { n: { type: "integer", minimum: 1, title: "N" } },
        required: ["n"],
        additionalProperties: false,
      },
    });
  });

  it("is non-strict beyond OpenAI's nesting limit", () => {
    let deep: v.GenericSchema = v.string();
    for (let i = 0; i < 11; i++) deep = v.object({ next: deep });
    expect(toOpenAIParameters(tool(deep)).strict).toBe(false);
  });

  it("does not mutate the tool's schema", () => {
    const t = tool(Booking);
    const before = JSON.stringify(t.inputSchema);
    toOpenAIParameters(t);
    expect(JSON.stringify(t.inputSchema)).toBe(before);
  });
});

describe("non-object roots", () => {
  it.each([
    ["a union", v.union([v.object({ a: v.string() }), v.object({ b: v.string() })]), /anyOf/],
    ["a string", v.string(), /type "string"/],
    ["an array", v.array(v.string()), /type "array"/],
  ])("are refused for every API, naming the tool and what was found (%s)", (_label, input, found) => {
    const t = tool(input, "root_check");
    for (const convert of [toOpenAIParameters, toGeminiParameters]) {
      expect(() => convert(t)).toThrow(FormatSchemaError);
      expect(() => convert(t)).toThrow(/Tool "root_check".*object schema at the root/);
      expect(() => convert(t)).toThrow(found);
    }
  });
});

describe("object roots with a union beside them", () => {
  const eitherOr = {
    type: "object",
    properties: { a: { type: "string" }, b: { type: "string" } },
    anyOf: [{ required: ["a"] }, { required: ["b"] }],
  };
  const remote = { ...tool(v.object({})), name: "either", inputSchema: eitherOr };

  it("stay usable where the API allows them, and are non-strict for OpenAI", () => {
    expect(toOpenAIParameters(remote)).toEqual({ parameters: eitherOr, strict: false });
    expect(() => toGeminiParameters(remote)).toThrow(
      /Tool "either": Gemini cannot express type beside anyOf\/oneOf \(at the root\)/,
    );
  });
});

describe("Gemini parameters", () => {
  it("maps to the OpenAPI subset: upper-case types, nullable, string counts, enums", () => {
    const schema = toGeminiParameters(tool(Booking));
    expect(schema).toEqual({
      type: "OBJECT",
      properties: {
        city: { type: "STRING", minLength: "1", description: "City name" },
        nights: { type: "INTEGER", minimum: 1, default: 1 },
        note: { type: "STRING", nullable: true },
        tags: { type: "ARRAY", items: { type: "STRING", enum: ["quiet", "view"] } },
        guest: {
          type: "OBJECT",
          properties: { name: { type: "STRING" }, email: { type: "STRING", format: "email" } },
          required: ["name"],
        },
        when: { anyOf: [{ type: "STRING", format: "date" }, { type: "NUMBER" }] },
      },
      required: ["city", "note", "guest"],
    });
  });

  it("uses only types @google/genai knows", () => {
    const types: string[] = [];
    const collect = (node: unknown): void => {
      if (typeof node !== "object" || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === "type") types.push(value as string);
        else collect(value);
      }
    };
    collect(toGeminiParameters(tool(Booking)));
    expect(types.length).toBeGreaterThan(5);
    for (const type of types) expect(Object.values(Type)).toContain(type);
  });

  it("writes literals and numeric enums in Gemini's enum forms", () => {
    const schema = toGeminiParameters(
      tool(
        v.object({
          kind: v.literal("circle"),
          level: v.picklist([1, 2, 3]),
          ratio: v.optional(v.picklist([0.5, 1.5])),
        }),
      ),
    );
    expect(schema.properties).toEqual({
      kind: { type: "STRING", enum: ["circle"] },
      level: { type: "NUMBER", format: "enum", enum: ["1", "2", "3"] },
      ratio: { type: "NUMBER", format: "enum", enum: ["0.5", "1.5"] },
    });
  });

  it("inlines non-recursive references", () => {
    const shared = { type: "object", properties: { x: { type: "number" } }, required: ["x"] };
    const t = {
      ...tool(v.object({})),
      name: "refs",
      inputSchema: {
        type: "object",
        properties: { a: { $ref: "#/$defs/P" }, b: { $ref: "#/$defs/P" } },
        $defs: { P: shared },
      },
    };
    expect(toGeminiParameters(t).properties).toEqual({
      a: { type: "OBJECT", properties: { x: { type: "NUMBER" } }, required: ["x"] },
      b: { type: "OBJECT", properties: { x: { type: "NUMBER" } }, required: ["x"] },
    });
  });

  it.each([
    [
      "a record",
      v.object({ scores: v.record(v.string(), v.number()) }),
      /records \(propertyNames\) \(at properties\.scores\)/,
    ],
    [
      "an object with rest",
      v.object({ o: v.objectWithRest({ a: v.string() }, v.number()) }),
      /records \(additionalProperties with a schema\) \(at properties\.o\)/,
    ],
    ["a tuple", v.object({ pair: v.tuple([v.string(), v.number()]) }), /tuples \(prefixItems\)/],
    ["recursion", TreeSchema, /recursive schemas \(\$ref #\/\$defs\/0\)/],
    [
      "an intersection",
      v.object({ both: v.intersect([v.object({ a: v.string() }), v.object({ b: v.string() })]) }),
      /allOf/,
    ],
    ["an untyped value", v.object({ anything: v.any() }), /accepts any value \(no type\) \(at properties\.anything\)/],
    ["a boolean literal", v.object({ yes: v.literal(true) }), /enum or const of \[true\]/],
  ])("refuses %s with a FormatSchemaError naming tool and construct", (_label, input, construct) => {
    const t = tool(input, "gem_tool");
    expect(() => toGeminiParameters(t)).toThrow(FormatSchemaError);
    expect(() => toGeminiParameters(t)).toThrow(/^Tool "gem_tool": Gemini cannot express /);
    expect(() => toGeminiParameters(t)).toThrow(construct);
  });
});

describe("dropNullOptionals", () => {
  const schema = tool(Booking).inputSchema;
  const validate = (value: unknown) => v.safeParse(Booking, value);

  it("turns the nulls a strict model sends for optional fields back into absent ones", () => {
    const sent = { city: "Oslo", nights: null, note: null, tags: null, guest: { name: "A", email: null }, when: null };
    expect(validate(sent).success).toBe(false);
    const relaxed = dropNullOptionals(schema, sent);
    expect(relaxed).toEqual({ city: "Oslo", note: null, guest: { name: "A" } });
    const parsed = validate(relaxed);
    expect(parsed.success && parsed.output.nights).toBe(1);
    expect(sent.nights).toBeNull();
  });

  it("keeps nulls the schema allows and returns the same value when nothing changes", () => {
    const value = { city: "Oslo", note: null, guest: { name: "A" } };
    expect(dropNullOptionals(schema, value)).toBe(value);
  });

  it("follows arrays, $refs and the one union branch a value fits", () => {
    const input = v.object({
      items: v.array(v.object({ a: v.optional(v.string()) })),
      shape: v.variant("kind", [
        v.object({ kind: v.literal("c"), r: v.optional(v.number()) }),
        v.object({ kind: v.literal("s"), r: v.nullable(v.number()) }),
      ]),
    });
    const s = tool(input).inputSchema;
    expect(dropNullOptionals(s, { items: [{ a: null }, { a: "x" }], shape: { kind: "c", r: null } })).toEqual({
      items: [{}, { a: "x" }],
      shape: { kind: "c" },
    });
    expect(dropNullOptionals(s, { items: [], shape: { kind: "s", r: null } })).toEqual({
      items: [],
      shape: { kind: "s", r: null },
    });
    const tree = tool(TreeSchema).inputSchema;
    expect(dropNullOptionals(tree, { label: "a", children: [{ label: "b", children: null }] })).toEqual({
      label: "a",
      children: [{ label: "b" }],
    });
  });
});
