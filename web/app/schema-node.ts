import { isPlainObject, type JsonSchema } from "../../src/json";

/**
 * A JSON Schema node reduced to what a form needs: one base type, whether null is allowed, enum
 * values. Anything a form cannot express well (unions of several types, recursion) is "json": the
 * field then takes raw JSON, and the core's validator still checks it before sending.
 */
export type Kind = "string" | "number" | "integer" | "boolean" | "object" | "array" | "enum" | "json";

export interface Node {
  kind: Kind;
  schema: JsonSchema;
  nullable: boolean;
  title?: string;
  description?: string;
  enumValues?: unknown[];
}

const MAX_REF_DEPTH = 16;

/** Follows local `$ref`s ("#/$defs/x", "#/definitions/x") against the root schema. */
export function resolve(schema: JsonSchema, root: JsonSchema, depth = 0): JsonSchema | undefined {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  if (depth > MAX_REF_DEPTH || !ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const part of ref.replace(/^#\/?/, "").split("/").filter(Boolean)) {
    const key = decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
    node = isPlainObject(node) ? node[key] : undefined;
  }
  return isPlainObject(node) ? resolve(node, root, depth + 1) : undefined;
}

function isNullSchema(s: unknown): boolean {
  return (
    isPlainObject(s) && (s.type === "null" || (Array.isArray(s.enum) && s.enum.length === 1 && s.enum[0] === null))
  );
}

export function nodeOf(input: JsonSchema, root: JsonSchema): Node {
  const schema = resolve(input, root);
  if (!schema) return { kind: "json", schema: input, nullable: false };
  const base = {
    schema,
    ...(typeof schema.title === "string" ? { title: schema.title } : {}),
    ...(typeof schema.description === "string" ? { description: schema.description } : {}),
  };
  // X | null, as valibot's nullable() and OpenAPI converters write it.
  const union = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(union)) {
    const others = union.filter((s) => !isNullSchema(s));
    if (others.length === 1 && others.length < union.length && isPlainObject(others[0])) {
      const inner = nodeOf({ ...others[0], ...base, description: base.description ?? others[0].description }, root);
      return { ...inner, nullable: true };
    }
    return { kind: "json", nullable: false, ...base };
  }
  if (Array.isArray(schema.enum))
    return {
      kind: "enum",
      nullable: schema.enum.includes(null),
      enumValues: schema.enum.filter((v) => v !== null),
      ...base,
    };
  if ("const" in schema) return { kind: "enum", nullable: false, enumValues: [schema.const], ...base };
  let type = schema.type;
  let nullable = false;
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== "null");
    nullable = nonNull.length < type.length;
    type = nonNull.length === 1 ? nonNull[0] : undefined;
  }
  if (type === undefined && isPlainObject(schema.properties)) type = "object";
  if (type === undefined && schema.items !== undefined) type = "array";
  const known: Kind[] = ["string", "number", "integer", "boolean", "object", "array"];
  return { kind: known.includes(type as Kind) ? (type as Kind) : "json", nullable, ...base };
}

/** "a.b[0]" paths as the core's validator writes them (see pointerToPath in src/json-schema.ts). */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return parent === "" ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}
