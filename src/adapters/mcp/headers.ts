import { isPlainObject } from "../../json";
import { encodeHeaderValue, paramHeader } from "../../mcp/headers";

/**
 * The 2026-07-28 Mcp-Param-{Name} headers a tool's inputSchema asks for with `x-mcp-header`
 * (streamable-http.mdx, Request Metadata): which parameters, and their values for a call. The
 * standard headers and the value encoding are src/mcp/headers.ts's.
 */

/** A parameter the server wants mirrored into `Mcp-Param-{name}`: where it sits in the arguments. */
export interface HeaderParam {
  name: string;
  path: string[];
}

/** RFC 9110 token characters (a header field name). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const COMPOSITE = [
  "items",
  "prefixItems",
  "additionalProperties",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$ref",
  "$defs",
  "definitions",
  "patternProperties",
  "dependentSchemas",
  "contains",
];

/** Whether an x-mcp-header appears anywhere but on a chain of `properties` (which makes the tool invalid). */
function hiddenHeader(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(hiddenHeader);
  if (!isPlainObject(schema)) return false;
  return "x-mcp-header" in schema || Object.values(schema).some(hiddenHeader);
}

function primitive(schema: Record<string, unknown>): boolean {
  const type = schema.type;
  return type === "string" || type === "integer" || type === "boolean";
}

/**
 * The header parameters of a tool's inputSchema, or the reason the definition is invalid (the
 * client must then leave the tool out: tools.mdx, x-mcp-header).
 */
export function headerParamsOf(inputSchema: unknown): HeaderParam[] | string {
  const found: HeaderParam[] = [];
  const walk = (schema: Record<string, unknown>, path: string[]): string | undefined => {
    for (const key of COMPOSITE)
      if (hiddenHeader(schema[key])) return `x-mcp-header under "${key}" at /${path.join("/")}`;
    const properties = isPlainObject(schema.properties) ? schema.properties : {};
    for (const [name, child] of Object.entries(properties)) {
      if (!isPlainObject(child)) continue;
      const where = [...path, name];
      if ("x-mcp-header" in child) {
        const header = child["x-mcp-header"];
        if (typeof header !== "string" || !TOKEN.test(header))
          return `x-mcp-header ${JSON.stringify(header)} at /${where.join("/")} is not a header name`;
        if (!primitive(child))
          return `x-mcp-header "${header}" is on a parameter that is not a string, integer or boolean`;
        if (found.some((p) => p.name.toLowerCase() === header.toLowerCase()))
          return `x-mcp-header "${header}" appears twice`;
        found.push({ name: header, path: where });
      }
      const nested = walk(child, where);
      if (nested) return nested;
    }
    return undefined;
  };
  if (!isPlainObject(inputSchema)) return found;
  return walk(inputSchema, []) ?? found;
}

/** The Mcp-Param-* headers for these arguments (absent and null values send no header). */
export function paramHeaders(params: readonly HeaderParam[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const param of params) {
    let value: unknown = args;
    for (const key of param.path) value = isPlainObject(value) ? value[key] : undefined;
    if (typeof value === "string") headers[paramHeader(param.name)] = encodeHeaderValue(value);
    else if (typeof value === "boolean" || (typeof value === "number" && Number.isSafeInteger(value)))
      headers[paramHeader(param.name)] = String(value);
  }
  return headers;
}
