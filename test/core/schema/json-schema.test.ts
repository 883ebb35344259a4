import { describe, expect, it } from "vitest";
import { jsonSchemaValidator, pointerToPath } from "../../../src/schema/json-schema";

describe("jsonSchemaValidator", () => {
  const schema = {
    type: "object",
    properties: {
      a: { type: "object", properties: { b: { type: "array", items: { type: "string" } } } },
      n: { type: "integer", minimum: 1 },
    },
    required: ["n"],
    additionalProperties: false,
  };
  const validate = jsonSchemaValidator(schema);

  it("accepts valid input and returns it", () => {
    expect(validate({ n: 2, a: { b: ["x"] } })).toEqual({ ok: true, value: { n: 2, a: { b: ["x"] } } });
  });

  it("reports leaf issues with dot/bracket paths, not summaries", () => {
    const result = validate({ a: { b: ["ok", 3] }, extra: true });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const paths = result.issues.map((i) => i.path);
    expect(paths).toContain("a.b[1]");
    expect(paths).toContain("extra");
    expect(paths).toContain("n"); // missing required n: on n, as valibot says it
    expect(result.issues.find((i) => i.path === "a.b[1]")?.message).toMatch(/Expected "string"/);
    expect(result.issues.find((i) => i.path === "extra")?.message).toMatch(/not allowed/);
    expect(result.issues.some((i) => /does not match schema/.test(i.message))).toBe(false);
  });

  it("puts a missing required property at its own path, however it is named", () => {
    const nested = jsonSchemaValidator({
      type: "object",
      properties: {
        owner: { type: "object", properties: { name: { type: "string" } }, required: ["name", 'odd "key"'] },
      },
      required: ["owner", "a b"],
    });
    const outer = nested({});
    expect(!outer.ok && outer.issues.map((i) => i.path)).toEqual(["owner", '["a b"]']);
    const inner = nested({ owner: {}, "a b": 1 });
    expect(!inner.ok && inner.issues).toEqual([
      { path: "owner.name", message: 'Instance does not have required property "name".' },
      { path: 'owner["odd \\"key\\""]', message: 'Instance does not have required property "odd "key"".' },
    ]);
  });

  it("rejects non-object roots and non-object types with a clear error", () => {
    expect(() => jsonSchemaValidator([] as never)).toThrow(/expected an object at the root, got an array/);
    expect(() => jsonSchemaValidator(true as never)).toThrow(/got boolean/);
    expect(() => jsonSchemaValidator({ type: "string" })).toThrow(/type "object"/);
  });

  it("rejects invalid regular expressions at construction", () => {
    expect(() =>
      jsonSchemaValidator({ type: "object", properties: { a: { type: "string", pattern: "^[a-" } } }),
    ).toThrow(/#\/properties\/a\/pattern/);
  });

  it("supports $ref, anyOf and formats without code generation", () => {
    const v = jsonSchemaValidator({
      type: "object",
      properties: { id: { $ref: "#/$defs/id" }, v: { anyOf: [{ type: "string" }, { type: "number" }] } },
      $defs: { id: { type: "string", minLength: 3 } },
    });
    expect(v({ id: "abc", v: 1 }).ok).toBe(true);
    const bad = v({ id: "x", v: true });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.issues.find((i) => i.path === "id")?.message).toMatch(/too short/);
    expect(
      bad.issues
        .filter((i) => i.path === "v")
        .map((i) => i.message)
        .join(" "),
    ).toMatch(/Expected "string".*Expected "number"|any subschemas/s);
    expect(bad.issues.some((i) => /subschema had errors/.test(i.message))).toBe(false);
  });

  it("honours draft-07 via $schema", () => {
    const v = jsonSchemaValidator({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { a: { type: "number", exclusiveMaximum: 5 } },
    });
    expect(v({ a: 5 }).ok).toBe(false);
    expect(v({ a: 4 }).ok).toBe(true);
  });
});

describe("pointerToPath", () => {
  it("distinguishes array indexes from numeric keys and quotes odd keys", () => {
    expect(pointerToPath("#/a/0/b", { a: [{ b: 1 }] })).toBe("a[0].b");
    expect(pointerToPath("#/a/0", { a: { "0": 1 } })).toBe('a["0"]');
    expect(pointerToPath("#/a~1b/c%20d", { "a/b": { "c d": 1 } })).toBe('["a/b"]["c d"]');
    expect(pointerToPath("#", {})).toBe("");
  });
});

describe("jsonSchemaValidator builds its validator on first use", () => {
  // @cfworker/json-schema marks every schema node it has walked (__absolute_uri__, not enumerable).
  const walked = (schema: object) => Object.hasOwn(schema, "__absolute_uri__");

  it("walks the schema at the first validation, not at declaration", () => {
    const schema = { type: "object", properties: { id: { type: "string" } }, required: ["id"] };
    const validate = jsonSchemaValidator(schema);
    expect(walked(schema)).toBe(false);
    expect(validate({})).toMatchObject({ ok: false, issues: [{ path: "id" }] });
    expect(walked(schema)).toBe(true);
    expect(validate({ id: "x" })).toEqual({ ok: true, value: { id: "x" } });
  });

  it("still refuses at declaration what building can refuse (URIs) and bad patterns", () => {
    const twice = {
      type: "object",
      properties: { a: { $id: "https://x.example/s" }, b: { $id: "https://x.example/s" } },
    };
    expect(() => jsonSchemaValidator(twice)).toThrow(/Duplicate schema URI/);
    const withRef = { type: "object", properties: { a: { $ref: "#/$defs/a" } }, $defs: { a: { type: "string" } } };
    jsonSchemaValidator(withRef);
    expect(walked(withRef)).toBe(true);
    expect(() => jsonSchemaValidator({ type: "object", properties: { a: { type: "string", pattern: "(" } } })).toThrow(
      /not a valid regular expression/,
    );
  });
});
