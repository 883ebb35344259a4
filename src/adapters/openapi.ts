import * as v from "valibot";
import { isPlainObject, type JsonSchema } from "../json";
import type { Tool } from "../tool";
import {
  AuthSchema,
  ConnectionUseSchema,
  httpUrl,
  jsonObject,
  maxResponseBytes,
  parseDeclaration,
  policyEntries,
  policyOf,
  RateLimitSchema,
  type HttpToolDeclaration,
} from "./declarations";
import { httpTool } from "./http";
import { labelOf, type AdapterDeps, type AdapterKind } from "./kind";
import { createSchemaConverter, resolveRef } from "./openapi-schema";

export const OpenApiSchema = v.strictObject({
  /** Label used in errors and as the default name prefix source. */
  name: v.pipe(v.string(), v.minLength(1)),
  /** The OpenAPI 3.x document (JSON). */
  document: jsonObject,
  /** Base URL; default: the document's servers[0].url. */
  baseUrl: v.optional(httpUrl),
  /** operationIds to expose; default: every operation that has one. */
  operations: v.optional(v.array(v.string())),
  /** Prefix prepended to each operationId to form the tool name. */
  prefix: v.optional(v.string(), ""),
  auth: v.optional(AuthSchema),
  /** Every operation acts as the calling user through this connection. */
  connection: v.optional(ConnectionUseSchema),
  maxResponseBytes,
  rateLimit: v.optional(RateLimitSchema),
  /**
   * Each operation's 2xx JSON response schema becomes its tool's output schema, checked on
   * every answer; false ignores them.
   */
  outputSchemas: v.optional(v.boolean(), true),
  ...policyEntries,
});
export type OpenApiDeclaration = v.InferInput<typeof OpenApiSchema>;
type OpenApi = v.InferOutput<typeof OpenApiSchema>;

const METHODS = ["get", "put", "post", "delete", "patch", "head"] as const;
type Obj = Record<string, unknown>;
const obj = (value: unknown): Obj => (isPlainObject(value) ? value : {});

/** servers[0].url with its variables' defaults filled in. */
function serverUrl(doc: Obj, label: string): string {
  const server = obj(Array.isArray(doc.servers) ? doc.servers[0] : undefined);
  if (typeof server.url !== "string")
    throw new TypeError(`${label}: invalid baseUrl: the document has no servers[0].url; set baseUrl`);
  const variables = obj(server.variables);
  const url = server.url.replace(/\{([^}]+)\}/g, (_m, name: string) => String(obj(variables[name]).default ?? ""));
  if (!/^https?:\/\//i.test(url))
    throw new TypeError(`${label}: invalid baseUrl: servers[0].url "${url}" is not absolute; set baseUrl`);
  return url;
}

/** The JSON media type of a request body, if it has one. */
function jsonContent(content: Obj): Obj | undefined {
  const type = Object.keys(content).find((t) => /^application\/([\w.+-]+\+)?json\b/i.test(t));
  return type === undefined ? undefined : obj(content[type]);
}

/**
 * The JSON Schema of an operation's first 2xx answer (200 before 201 …, then 2XX), when the document
 * gives one; a schema that is only a component reference is inlined, so an object stays an object.
 */
function responseSchema(
  doc: Obj,
  op: Obj,
  convert: ReturnType<typeof createSchemaConverter>,
  where: string,
): JsonSchema | undefined {
  const responses = obj(op.responses);
  const status = Object.keys(responses)
    .filter((code) => /^2(\d\d|XX)$/i.test(code))
    .sort()[0];
  if (status === undefined) return undefined;
  const media = jsonContent(obj(obj(resolveRef(doc, responses[status], where)).content));
  if (media?.schema === undefined) return undefined;
  const defs = new Map<string, JsonSchema>();
  let schema = convert(media.schema, defs);
  const only =
    Object.keys(schema).length === 1 && typeof schema.$ref === "string"
      ? /^#\/\$defs\/(.+)$/.exec(schema.$ref)?.[1]
      : undefined;
  if (only !== undefined && defs.has(only)) schema = { ...defs.get(only) };
  if (defs.size) schema.$defs = Object.fromEntries(defs);
  return schema;
}

/** One operation as an HTTP tool declaration, or why it cannot be one. */
function toDeclaration(
  doc: Obj,
  decl: OpenApi,
  base: string,
  path: string,
  method: string,
  item: Obj,
  op: Obj,
  where: string,
): HttpToolDeclaration | string {
  const convert = createSchemaConverter(doc, where);
  const defs = new Map<string, JsonSchema>();
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const query: Record<string, string> = {};
  const headers: Record<string, string> = {};
  let url = base.replace(/\/$/, "") + path;
  const params = new Map<string, Obj>();
  for (const raw of [
    ...(Array.isArray(item.parameters) ? item.parameters : []),
    ...(Array.isArray(op.parameters) ? op.parameters : []),
  ]) {
    const param = obj(resolveRef(doc, raw, where));
    params.set(`${String(param.in)}:${String(param.name)}`, param); // operation-level wins
  }
  for (const param of params.values()) {
    const { name, in: where_ } = param;
    if (typeof name !== "string" || !["path", "query", "header"].includes(String(where_))) {
      if (param.required === true) return `required ${String(where_)} parameter "${String(name)}" is not supported`;
      continue;
    }
    const prop = name in properties ? `${String(where_)}_${name}` : name;
    const source = param.schema ?? Object.values(obj(param.content)).map((m) => obj(m).schema)[0];
    const schema = convert(source, defs);
    if (typeof param.description === "string" && schema.description === undefined)
      schema.description = param.description;
    properties[prop] = schema;
    if (param.required === true || where_ === "path") required.push(prop);
    if (where_ === "path") url = url.split(`{${name}}`).join(`{${prop}}`);
    else (where_ === "query" ? query : headers)[name] = `{${prop}}`;
  }
  let body: string | undefined;
  if (op.requestBody !== undefined) {
    const requestBody = obj(resolveRef(doc, op.requestBody, where));
    const media = jsonContent(obj(requestBody.content));
    if (!media) return "its request body is not JSON";
    body = "body" in properties ? "requestBody" : "body";
    properties[body] = convert(media.schema, defs);
    if (requestBody.required === true) required.push(body);
  }
  const input: JsonSchema = { type: "object", properties, additionalProperties: false };
  if (required.length) input.required = required;
  if (defs.size) input.$defs = Object.fromEntries(defs);
  const summary = [op.summary, op.description]
    .filter((s): s is string => typeof s === "string" && s !== "")
    .join("\n\n");
  const output = decl.outputSchemas ? responseSchema(doc, op, convert, where) : undefined;
  return {
    ...policyOf(decl),
    name: `${decl.prefix}${String(op.operationId)}`.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64),
    description: summary || `${method.toUpperCase()} ${path}`,
    input,
    method: method.toUpperCase() as HttpToolDeclaration["method"],
    url,
    query,
    headers,
    ...(body ? { body: { arg: body } } : {}),
    rest: "drop",
    ...(decl.auth ? { auth: decl.auth } : {}),
    ...(decl.connection ? { connection: decl.connection } : {}),
    ...(decl.maxResponseBytes ? { maxResponseBytes: decl.maxResponseBytes } : {}),
    ...(decl.rateLimit ? { rateLimit: decl.rateLimit } : {}),
    ...(output ? { output } : {}),
  };
}

/**
 * One HTTP tool per selected operation of an OpenAPI 3.x document: operationId → name, path /
 * query / header parameters and a JSON request body (as `body`) → the input schema, servers[0]
 * (or baseUrl) → the base URL. Operations without an operationId are skipped; a listed operation
 * that is missing or cannot be expressed fails the declaration.
 */
export function openApiTools(declaration: OpenApiDeclaration, deps: AdapterDeps = {}): Tool[] {
  const label = labelOf(openApiKind, declaration);
  return toolsOf(parseDeclaration(OpenApiSchema, declaration, label), label, deps);
}

/** The `openapi` section of a tenant's configuration: one tool per selected operation of each document. */
export const openApiKind: AdapterKind<OpenApi> = {
  label: "OpenAPI",
  schema: OpenApiSchema,
  upstreamUrl: (decl, label) => decl.baseUrl ?? serverUrl(decl.document, label),
  tools: (decl, deps) => toolsOf(decl, labelOf(openApiKind, decl), deps),
  summary: (_decl, tools) => ({ tools: tools.map((tool) => tool.name) }),
};

function toolsOf(decl: OpenApi, label: string, deps: AdapterDeps): Tool[] {
  const doc = decl.document;
  if (typeof doc.openapi !== "string" || !doc.openapi.startsWith("3.")) {
    throw new TypeError(
      `${label}: invalid document.openapi: expected a 3.x version, got ${JSON.stringify(doc.openapi)}`,
    );
  }
  const base = decl.baseUrl ?? serverUrl(doc, label);
  const wanted = decl.operations ? new Set(decl.operations) : undefined;
  const tools: Tool[] = [];
  const found = new Set<string>();
  for (const [path, rawItem] of Object.entries(obj(doc.paths))) {
    const item = obj(resolveRef(doc, rawItem, `${label} paths.${path}`));
    for (const method of METHODS) {
      const op = obj(item[method]);
      const id = op.operationId;
      if (typeof id !== "string" || (wanted && !wanted.has(id))) continue;
      found.add(id);
      const where = `${label} operation "${id}"`;
      const operation = toDeclaration(doc, decl, base, path, method, item, op, where);
      if (typeof operation === "string") {
        if (wanted) throw new TypeError(`${where}: cannot be a tool: ${operation}`);
        continue;
      }
      try {
        tools.push(httpTool(operation, { ...deps, source: "openapi" }));
      } catch (error) {
        throw new TypeError(`${where}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  for (const id of wanted ?? [])
    if (!found.has(id)) throw new TypeError(`${label}: invalid operations: no operation "${id}" in the document`);
  return tools;
}
