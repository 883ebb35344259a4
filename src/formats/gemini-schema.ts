import type { JsonSchema } from "../json";
import type { Tool } from "../tool";
import { FormatSchemaError, isSchemaObject, requireObjectRoot, resolveRef, typesOf, where } from "../schema/walk";

/** Gemini's OpenAPI-subset Schema, as @google/genai declares it (int64 counts are strings there). */
export type GeminiType = "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT";
export interface GeminiSchema {
  type?: GeminiType;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  default?: unknown;
  example?: unknown;
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  minProperties?: string;
  maxProperties?: string;
  items?: GeminiSchema;
  minItems?: string;
  maxItems?: string;
  minLength?: string;
  maxLength?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: GeminiSchema[];
}

/**
 * Keywords with no Gemini form that change which shapes are accepted: refusing is the honest answer.
 * Keywords that only narrow a shape Gemini can express (multipleOf, uniqueItems, exclusive bounds) are
 * dropped or approximated instead; the pipeline still validates against the full schema.
 */
const REFUSED: Record<string, string> = {
  allOf: "allOf (intersections)",
  not: "not",
  if: "if/then/else",
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, in a lookup table
  then: "if/then/else",
  else: "if/then/else",
  prefixItems: "tuples (prefixItems)",
  additionalItems: "tuples (additionalItems)",
  patternProperties: "patternProperties",
  propertyNames: "records (propertyNames)",
  dependentSchemas: "dependentSchemas",
  dependentRequired: "dependentRequired",
  dependencies: "dependencies",
  unevaluatedProperties: "unevaluatedProperties",
  unevaluatedItems: "unevaluatedItems",
  contains: "contains",
  $dynamicRef: "$dynamicRef",
  $recursiveRef: "$recursiveRef",
};
const TYPES: Record<string, GeminiType> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT",
};
const COUNTS = ["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"] as const;

/** Gemini's parameters for a tool; throws FormatSchemaError naming the tool and the construct. */
export function toGeminiParameters(tool: Tool): GeminiSchema {
  const root = requireObjectRoot(tool.name, tool.inputSchema, "Gemini");
  return convert(root, { tool: tool.name, root, refs: [] }, []);
}

interface Walk {
  tool: string;
  root: JsonSchema;
  /** $refs being expanded on the current path: a repeat is recursion, which Gemini cannot express. */
  refs: string[];
}

function convert(node: unknown, walk: Walk, path: string[]): GeminiSchema {
  const refuse = (construct: string): never => {
    throw new FormatSchemaError(`Tool "${walk.tool}": Gemini cannot express ${construct} (at ${where(path)}).`);
  };
  if (!isSchemaObject(node))
    return refuse(node === true ? "a schema that accepts any value" : "a boolean or malformed schema");
  const refused = Object.keys(REFUSED).find((key) => key in node);
  if (refused) refuse(REFUSED[refused]!);

  if ("$ref" in node) {
    const ref = node.$ref;
    if (typeof ref !== "string") return refuse("a malformed $ref");
    if (walk.refs.includes(ref)) refuse(`recursive schemas ($ref ${ref})`);
    const target = resolveRef(walk.root, ref);
    if (!target) return refuse(`an unresolvable $ref ${ref}`);
    const inner = convert(target, { ...walk, refs: [...walk.refs, ref] }, path);
    return { ...inner, ...annotations(node) };
  }

  const out: GeminiSchema = annotations(node);
  const branches = node.anyOf ?? node.oneOf;
  let types = typesOf(node);
  if (types?.includes("null")) {
    out.nullable = true;
    types = types.filter((t) => t !== "null");
  }
  if (branches !== undefined) {
    // oneOf → anyOf: Gemini has only anyOf; the pipeline still enforces exclusivity.
    if (!Array.isArray(branches) || branches.length === 0) return refuse("an empty or malformed anyOf/oneOf");
    if (types !== undefined) refuse("type beside anyOf/oneOf");
    const kept = branches.filter((b) => !(isSchemaObject(b) && b.type === "null"));
    if (kept.length < branches.length) out.nullable = true;
    if (kept.length === 0) refuse("a value that can only be null");
    const converted = kept.map((b, i) => convert(b, walk, [...path, "anyOf", String(i)]));
    // A single branch left (the `T | null` case) is that branch, made nullable.
    return converted.length === 1 ? { ...converted[0], ...out } : { ...out, anyOf: converted };
  }

  if ("const" in node) return { ...out, ...enumOf([node.const], types, refuse) };
  if ("enum" in node) {
    if (!Array.isArray(node.enum)) return refuse("a malformed enum");
    const values = node.enum.filter((value) => value !== null);
    if (values.length < node.enum.length) out.nullable = true;
    return { ...out, ...enumOf(values, types, refuse) };
  }
  if (types === undefined) return refuse("a schema that accepts any value (no type)");
  if (types.length === 0) return refuse("a value that can only be null");
  if (types.length > 1) {
    const { nullable, ...shared } = out;
    const anyOf = types.map((t) => convert({ ...node, type: t }, walk, path));
    return {
      ...shared,
      ...(nullable ? { nullable } : {}),
      anyOf: anyOf.map(({ title: _t, description: _d, ...rest }) => rest),
    };
  }
  const type = TYPES[types[0]!];
  if (!type) return refuse(`type ${JSON.stringify(types[0])}`);
  out.type = type;
  return { ...out, ...shape(node, type, walk, path, refuse) };
}

function shape(
  node: JsonSchema,
  type: GeminiType,
  walk: Walk,
  path: string[],
  refuse: (c: string) => never,
): GeminiSchema {
  const out: GeminiSchema = {};
  for (const key of COUNTS) if (typeof node[key] === "number") out[key] = String(node[key]);
  if (type === "STRING") {
    if (typeof node.pattern === "string") out.pattern = node.pattern;
    if (typeof node.format === "string") out.format = node.format;
  } else if (type === "NUMBER" || type === "INTEGER") {
    // Exclusive bounds have no Gemini form; the inclusive bound is the nearest hint.
    const min = node.minimum ?? node.exclusiveMinimum;
    const max = node.maximum ?? node.exclusiveMaximum;
    if (typeof min === "number") out.minimum = min;
    if (typeof max === "number") out.maximum = max;
    const formats = type === "NUMBER" ? ["float", "double"] : ["int32", "int64"];
    if (typeof node.format === "string" && formats.includes(node.format)) out.format = node.format;
  } else if (type === "ARRAY") {
    if (Array.isArray(node.items)) refuse("tuples (items as a list)");
    if (node.items !== undefined) out.items = convert(node.items, walk, [...path, "items"]);
  } else if (type === "OBJECT") {
    const extra = node.additionalProperties;
    if (extra !== undefined && extra !== false && extra !== true)
      refuse("records (additionalProperties with a schema)");
    if (node.properties !== undefined) {
      if (!isSchemaObject(node.properties)) refuse("malformed properties");
      const properties = node.properties as JsonSchema;
      out.properties = Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [key, convert(value, walk, [...path, "properties", key])]),
      );
      const required = Array.isArray(node.required)
        ? node.required.filter((k) => typeof k === "string" && Object.hasOwn(properties, k))
        : [];
      if (required.length > 0) out.required = required as string[];
    }
  }
  return out;
}

/** Gemini enums are strings; numbers use the SDK's documented `format: "enum"` form. */
function enumOf(values: unknown[], types: string[] | undefined, refuse: (c: string) => never): GeminiSchema {
  if (values.length === 0) return refuse("an enum of only null");
  if (values.every((value) => typeof value === "string")) return { type: "STRING", enum: values as string[] };
  if (values.every((value) => typeof value === "number" && Number.isFinite(value))) {
    const integer = values.every((value) => Number.isInteger(value)) && !types?.includes("number");
    return { type: integer ? "INTEGER" : "NUMBER", format: "enum", enum: values.map(String) };
  }
  return refuse(`an enum or const of ${JSON.stringify(values).slice(0, 60)} (only strings or only numbers)`);
}

function annotations(node: JsonSchema): GeminiSchema {
  const out: GeminiSchema = {};
  if (typeof node.title === "string") out.title = node.title;
  if (typeof node.description === "string") out.description = node.description;
  if (node.default !== undefined) out.default = node.default;
  if (Array.isArray(node.examples) && node.examples.length > 0) out.example = node.examples[0];
  return out;
}
