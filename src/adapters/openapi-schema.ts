import { isPlainObject, type JsonSchema } from "../json";

const COMPONENT_SCHEMA = "#/components/schemas/";
/** Keywords whose values are data, not schemas: never rewritten. */
const DATA_KEYWORDS = new Set(["example", "examples", "default", "enum", "const"]);
/** Keywords whose values map names to schemas (a property may be called "default"). */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
const MAX_REF_DEPTH = 32;

/** Follow a local "#/…" reference inside the document; external references are refused. */
export function resolveRef(doc: Record<string, unknown>, node: unknown, where: string): unknown {
  let current = node;
  for (let depth = 0; isPlainObject(current) && typeof current.$ref === "string"; depth++) {
    const ref = current.$ref;
    if (depth >= MAX_REF_DEPTH) throw new TypeError(`${where}: $ref chain too deep at ${ref}`);
    if (!ref.startsWith("#/"))
      throw new TypeError(`${where}: only local $ref is supported, got ${JSON.stringify(ref)}`);
    let target: unknown = doc;
    for (const raw of ref.slice(2).split("/")) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      target = isPlainObject(target) || Array.isArray(target) ? (target as Record<string, unknown>)[key] : undefined;
    }
    if (target === undefined) throw new TypeError(`${where}: $ref ${JSON.stringify(ref)} does not resolve`);
    current = target;
  }
  return current;
}

/**
 * Turns OpenAPI schemas into standalone JSON Schema (2020-12): component references become $defs
 * of the tool's input schema (only those reachable), and OpenAPI 3.0 dialect (nullable, boolean
 * exclusiveMinimum/Maximum) becomes plain JSON Schema.
 */
export function createSchemaConverter(doc: Record<string, unknown>, where: string) {
  const is30 = typeof doc.openapi === "string" && doc.openapi.startsWith("3.0");
  const components =
    isPlainObject(doc.components) && isPlainObject(doc.components.schemas) ? doc.components.schemas : {};

  function convertNode(node: unknown, defs: Map<string, JsonSchema>, depth: number): unknown {
    if (Array.isArray(node)) return node.map((item) => convertNode(item, defs, depth));
    if (!isPlainObject(node)) return node;
    if (typeof node.$ref === "string") {
      if (node.$ref.startsWith(COMPONENT_SCHEMA)) {
        const name = node.$ref.slice(COMPONENT_SCHEMA.length);
        if (!defs.has(name)) {
          const target = components[name];
          if (target === undefined) throw new TypeError(`${where}: $ref ${JSON.stringify(node.$ref)} does not resolve`);
          defs.set(name, {}); // placeholder first: recursive schemas terminate
          defs.set(name, convertNode(target, defs, depth + 1) as JsonSchema);
        }
        return { ...node, $ref: `#/$defs/${name}` };
      }
      if (depth > MAX_REF_DEPTH) throw new TypeError(`${where}: $ref nesting too deep at ${node.$ref}`);
      return convertNode(resolveRef(doc, node, where), defs, depth + 1);
    }
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) out[key] = value;
      else if (SCHEMA_MAPS.has(key) && isPlainObject(value)) {
        out[key] = Object.fromEntries(
          Object.entries(value).map(([name, sub]) => [name, convertNode(sub, defs, depth)]),
        );
      } else out[key] = convertNode(value, defs, depth);
    }
    if (is30) dialect30(out);
    return out;
  }

  /** One schema (parameter, body) as a standalone JSON Schema; its $defs are collected into `defs`. */
  return (schema: unknown, defs: Map<string, JsonSchema>): JsonSchema => {
    const converted = convertNode(schema ?? {}, defs, 0);
    return isPlainObject(converted) ? (converted as JsonSchema) : {};
  };
}

function dialect30(schema: JsonSchema): void {
  if (schema.nullable === true) {
    if (typeof schema.type === "string") schema.type = [schema.type, "null"];
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  }
  delete schema.nullable;
  for (const [flag, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (schema[flag] === true && typeof schema[bound] === "number") {
      schema[flag] = schema[bound];
      delete schema[bound];
    } else if (typeof schema[flag] === "boolean") delete schema[flag];
  }
}
