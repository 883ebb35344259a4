import type { JsonSchema } from "../json";

/** Small readers of JSON Schema shared by the per-format converters. */

/** Thrown by a format's toolDefinition() when it cannot express a tool's schema; names tool and construct. */
export class FormatSchemaError extends TypeError {
  override name = "FormatSchemaError";
}

export function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The `type` keyword as a list (undefined when absent or malformed). */
export function typesOf(schema: JsonSchema): string[] | undefined {
  const type = schema.type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type) && type.every((t) => typeof t === "string")) return type as string[];
  return undefined;
}

/** Resolve a local reference ("#", "#/$defs/x", "#/definitions/x", any JSON pointer into the root). */
export function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isSchemaObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return isSchemaObject(node) ? node : undefined;
}

/** Does the schema accept null? Conservative where unsure (unresolvable refs, `not`): no. */
export function acceptsNull(schema: unknown, root: JsonSchema, seen: ReadonlySet<string> = new Set()): boolean {
  if (schema === true) return true;
  if (!isSchemaObject(schema)) return false;
  if (typeof schema.$ref === "string") {
    if (seen.has(schema.$ref)) return false;
    const target = resolveRef(root, schema.$ref);
    return target !== undefined && acceptsNull(target, root, new Set([...seen, schema.$ref]));
  }
  const types = typesOf(schema);
  if (types && !types.includes("null")) return false;
  if ("const" in schema && schema.const !== null) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) return false;
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && !branches.some((b) => acceptsNull(b, root, seen))) return false;
  }
  if (Array.isArray(schema.allOf) && !schema.allOf.every((b) => acceptsNull(b, root, seen))) return false;
  // Keywords that do not name a type leave null allowed (JSON Schema semantics); `not` might exclude it.
  return !("not" in schema);
}

/** An object-rooted schema, typed as the SDKs declare tool input schemas. */
export interface ObjectSchema {
  type: "object";
  properties?: Record<string, object>;
  required?: string[];
  [key: string]: unknown;
}

/** Every chat API wants an object at the root of a tool's input; name what was found instead. */
export function requireObjectRoot(toolName: string, schema: JsonSchema, api: string): ObjectSchema {
  const types = typesOf(schema);
  const composite = ["anyOf", "oneOf", "allOf", "$ref"].find((key) => key in schema);
  // `type: "object"` beside anyOf (e.g. "a or b is required") is still an object; a bare union is not.
  if (types?.length === 1 && types[0] === "object") return schema as ObjectSchema;
  if (!types && !composite && isSchemaObject(schema.properties)) return { type: "object", ...schema } as ObjectSchema;
  const found = composite ?? (types ? `type ${JSON.stringify(schema.type)}` : "no type");
  throw new FormatSchemaError(
    `Tool "${toolName}": ${api} needs an object schema at the root of the input, but it has ${found}. ` +
      "Wrap the arguments in an object (for a union, use one object with a discriminating field).",
  );
}

/** A dotted location inside a schema for error messages ("" → "the root"). */
export function where(path: readonly string[]): string {
  return path.length === 0 ? "the root" : path.join(".");
}
