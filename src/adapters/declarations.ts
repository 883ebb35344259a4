import * as v from "valibot";
import { isJsonPointer } from "../json-pointer";
import { PolicyDataSchema } from "../policy";
import { TOOL_NAME_PATTERN } from "../tool";
import { RESULT_LAYOUTS } from "../tool-render";
import { connectionName, oauthScope } from "./oauth-names";

/**
 * The parts every adapter kind's declaration shares (credentials, rate limits, policy, URLs) and the
 * HTTP tool declaration, which OpenAPI operations become too; each kind's own schema sits in its
 * module (openapi.ts, mcp.ts). Declarations are data (JSON from a tenant's config), parsed with
 * valibot so a bad one fails with one readable line naming the adapter and the field.
 */

/** Field schemas for any kind's declaration. */
export const secretName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "must be a secret's name (letters, digits, _)"),
);
export const headerName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, "must be a valid HTTP header name"),
);
export const toolName = v.pipe(v.string(), v.regex(TOOL_NAME_PATTERN, `must match ${TOOL_NAME_PATTERN}`));
export const httpUrl = v.pipe(v.string(), v.regex(/^https?:\/\/[^\s/]+/i, "must be an absolute http(s) URL"));

/** How the configured credential is sent. `secret` names a Worker secret, never holds the value. */
export const AuthSchema = v.variant("type", [
  v.strictObject({ type: v.literal("bearer"), secret: secretName }),
  v.strictObject({ type: v.literal("header"), name: headerName, secret: secretName, prefix: v.optional(v.string()) }),
  v.strictObject({
    type: v.literal("basic"),
    username: v.optional(v.string()),
    usernameSecret: v.optional(secretName),
    passwordSecret: secretName,
  }),
  v.strictObject({ type: v.literal("query"), name: v.pipe(v.string(), v.minLength(1)), secret: secretName }),
]);
export type AuthDeclaration = v.InferOutput<typeof AuthSchema>;

/**
 * The tool acts as the calling user: its requests carry that user's token of the named connection,
 * which must have been granted `scopes` (besides the connection's own).
 */
export const ConnectionUseSchema = v.strictObject({
  name: connectionName,
  scopes: v.optional(v.pipe(v.array(oauthScope), v.maxLength(32, "may name at most 32 scopes")), []),
});
export type ConnectionUse = v.InferOutput<typeof ConnectionUseSchema>;

/** Requests per interval (with an optional burst), shared by every caller of the upstream. */
export const RateLimitSchema = v.strictObject({
  requests: v.pipe(v.number(), v.integer(), v.minValue(1)),
  intervalMs: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(86_400_000)),
  burst: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});
export type RateLimit = v.InferOutput<typeof RateLimitSchema>;

export const jsonObject = v.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "must be a JSON Schema object",
);
const templates = v.record(headerName, v.string());
/** Largest response body read, in bytes; the rest is cut and the result flagged truncated. Default 1 MiB. */
export const maxResponseBytes = v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50_000_000)));

/** The policy fields of a declaration, at its top level. */
export const policyEntries = PolicyDataSchema.entries;

/** How consoles show the tool's calls and results (see src/tool-render.ts): presentation only. */
export const RenderSchema = v.strictObject({
  call: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200, "must be at most 200 characters"))),
  result: v.optional(v.picklist(RESULT_LAYOUTS, `must be one of ${RESULT_LAYOUTS.join(", ")}`)),
});

export const HttpToolSchema = v.strictObject({
  name: toolName,
  title: v.optional(v.string()),
  description: v.string(),
  render: v.optional(RenderSchema),
  /** JSON Schema of the arguments (an object schema). Default: no arguments. */
  input: v.optional(jsonObject),
  method: v.optional(v.picklist(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]), "GET"),
  /** URL template: "{name}" is replaced by the percent-encoded argument. */
  url: httpUrl,
  /** Query parameter → template ("{arg}" or literal text with placeholders). */
  query: v.optional(v.record(v.pipe(v.string(), v.minLength(1)), v.string())),
  /** Header → template. Credentials do not go here: use `auth`. */
  headers: v.optional(templates),
  /** Send one argument as the whole JSON body. */
  body: v.optional(v.strictObject({ arg: v.pipe(v.string(), v.minLength(1)) })),
  /** Where arguments not used above go: query (default for GET/HEAD/DELETE), JSON body (others) or nowhere. */
  rest: v.optional(v.picklist(["query", "body", "drop"])),
  auth: v.optional(AuthSchema),
  /** Acts as the calling user through a connection (its token in Authorization: Bearer). */
  connection: v.optional(ConnectionUseSchema),
  maxResponseBytes,
  rateLimit: v.optional(RateLimitSchema),
  /** JSON Schema of the result (after `response`): every 2xx answer is checked against it. */
  output: v.optional(jsonObject),
  /** The result's fields, each picked from the upstream's JSON by a JSON Pointer (RFC 6901; "" is the whole answer). */
  response: v.optional(
    v.pipe(
      v.record(
        v.pipe(v.string(), v.regex(/^[^\s]{1,64}$/, "must be a field name (1-64 characters, no spaces)")),
        v.pipe(
          v.string(),
          v.check(
            (pointer) => pointer === "" || isJsonPointer(pointer),
            'must be a JSON Pointer into the answer, like "/main/temp" ("" for all of it)',
          ),
        ),
      ),
      v.check((fields) => Object.keys(fields).length > 0, "must map at least one field"),
    ),
  ),
  ...policyEntries,
});
/**
 * What a tenant's build reads of each HTTP declaration (its name, upstream, credential, rate limit and
 * the method its summary shows), with the same field schemas; the rest is checked with its tool.
 */
export const HttpToolHeadSchema = v.looseObject({
  name: HttpToolSchema.entries.name,
  url: HttpToolSchema.entries.url,
  method: HttpToolSchema.entries.method,
  auth: HttpToolSchema.entries.auth,
  connection: HttpToolSchema.entries.connection,
  rateLimit: HttpToolSchema.entries.rateLimit,
});
export type HttpToolDeclaration = v.InferInput<typeof HttpToolSchema>;
export type HttpTool = v.InferOutput<typeof HttpToolSchema>;

/** Parse a declaration or throw `<label>: invalid <field>: <message>`. */
export function parseDeclaration<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  label: string,
): v.InferOutput<S> {
  const parsed = v.safeParse(schema, value);
  if (parsed.success) return parsed.output;
  const issue = parsed.issues[0];
  const field = v.getDotPath(issue) ?? "declaration";
  throw new TypeError(`${label}: invalid ${field}: ${issue.message}`);
}

/** The policy part of a parsed declaration (what checkPolicy accepts). */
export function policyOf(
  declaration: Partial<Record<keyof typeof policyEntries, unknown>>,
): v.InferOutput<typeof PolicyDataSchema> {
  const policy: Record<string, unknown> = {};
  for (const key of Object.keys(policyEntries)) {
    const value = declaration[key as keyof typeof policyEntries];
    if (value !== undefined) policy[key] = value;
  }
  return policy as v.InferOutput<typeof PolicyDataSchema>;
}
