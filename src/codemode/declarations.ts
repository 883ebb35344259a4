import type { JsonSchema } from "../json";
import { isSchemaObject, resolveRef } from "../schema/walk";

/** What the declaration of one tool reads of it. */
export interface DeclaredTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema | undefined;
}

/** Deeper schemas (or $ref cycles) are declared `unknown`: the tool still validates what it gets. */
const MAX_DEPTH = 8;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key as TypeScript writes it: bare when it is an identifier, else quoted. */
function key(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** A description as a one-line JSDoc comment (never closing the comment early), or "" for none. */
function doc(text: unknown, indent: string): string {
  if (typeof text !== "string" || text.trim() === "") return "";
  const line = text.replace(/\s+/g, " ").trim().replaceAll("*/", "*\\/");
  return `${indent}/** ${line} */\n`;
}

function literal(value: unknown): string {
  return value === null || ["string", "number", "boolean"].includes(typeof value) ? JSON.stringify(value) : "unknown";
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  return unique.length === 0 ? "never" : unique.join(" | ");
}

/** The TypeScript type of a JSON Schema (a readable subset: objects, arrays, enums, unions, $refs). */
function typeOf(schema: unknown, root: JsonSchema, depth: number, indent: string): string {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  if (!isSchemaObject(schema) || depth > MAX_DEPTH) return "unknown";
  if (typeof schema.$ref === "string") {
    const target = resolveRef(root, schema.$ref);
    return target ? typeOf(target, root, depth + 1, indent) : "unknown";
  }
  if ("const" in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));
  const alternatives = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(alternatives)) return union(alternatives.map((s) => typeOf(s, root, depth + 1, indent)));
  if (Array.isArray(schema.allOf)) {
    return schema.allOf.map((s: unknown) => typeOf(s, root, depth + 1, indent)).join(" & ") || "unknown";
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? (schema.properties ? "object" : "any")];
  return union(types.map((type: unknown) => typeOfKind(type, schema, root, depth, indent)));
}

function typeOfKind(type: unknown, schema: JsonSchema, root: JsonSchema, depth: number, indent: string): string {
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return `Array<${typeOf(schema.items, root, depth + 1, indent)}>`;
    case "object":
      return objectType(schema, root, depth, indent);
    default:
      return "unknown";
  }
}

function objectType(schema: JsonSchema, root: JsonSchema, depth: number, indent: string): string {
  const properties = isSchemaObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(([name, property]) => {
    const optional = required.has(name) ? "" : "?";
    const description = isSchemaObject(property) ? property.description : undefined;
    return `${doc(description, inner)}${inner}${key(name)}${optional}: ${typeOf(property, root, depth + 1, inner)};\n`;
  });
  const extra = schema.additionalProperties;
  if (lines.length === 0) return extra === false ? "{}" : `Record<string, ${typeOf(extra, root, depth + 1, inner)}>`;
  if (extra !== undefined && extra !== false) lines.push(`${inner}[key: string]: unknown;\n`);
  return `{\n${lines.join("")}${indent}}`;
}

/**
 * A TypeScript declaration of `tools`, the API a code-mode program calls: one async method per tool,
 * its argument typed from the input schema and its result from the output schema (`unknown` without
 * one), each with its description as JSDoc.
 */
export function declareTools(tools: readonly DeclaredTool[]): string {
  const methods = tools.map((tool) => {
    const input = typeOf(tool.inputSchema, tool.inputSchema, 0, "  ");
    const output = tool.outputSchema ? typeOf(tool.outputSchema, tool.outputSchema, 0, "  ") : "unknown";
    return `${doc(tool.description, "  ")}  ${key(tool.name)}(input: ${input}): Promise<${output}>;\n`;
  });
  return `declare const tools: {\n${methods.join("")}};`;
}
