import * as v from "valibot";
import type { JsonSchema } from "../json";
import { jsonSchemaValidator } from "../schema/json-schema";
import { assembleTool, type Tool } from "../tool";
import { AuthSchema, httpUrl, jsonObject, maxResponseBytes, policyEntries, policyOf, RateLimitSchema, toolName } from "./declarations";
import { applyAuth } from "./http-request";
import { DEFAULT_MAX_RESPONSE_BYTES, toToolResult, upstreamFailure } from "./http-response";
import { labelOf, type AdapterDeps, type AdapterKind } from "./kind";
import { fetchUpstream, maskerFor } from "./upstream";

export const GraphQlSchema = v.strictObject({
  name: toolName,
  description: v.string(),
  /** The GraphQL endpoint; the tool POSTs { query, variables } to it. */
  url: httpUrl,
  /** The operation the tool runs; its arguments are the variables. */
  query: v.pipe(v.string(), v.minLength(1)),
  /** JSON Schema of the variables. Default: none. */
  input: v.optional(jsonObject),
  auth: v.optional(AuthSchema),
  maxResponseBytes,
  rateLimit: v.optional(RateLimitSchema),
  ...policyEntries,
});
type GraphQl = v.InferOutput<typeof GraphQlSchema>;

const NO_ARGS: JsonSchema = { type: "object", properties: {}, additionalProperties: false };

function toolOf(decl: GraphQl, deps: AdapterDeps): Tool {
  const label = labelOf(graphQlKind, decl);
  const input = (decl.input ?? NO_ARGS) as JsonSchema;
  const policy = policyOf(decl);
  return assembleTool({
    name: decl.name,
    description: decl.description,
    source: "graphql",
    policy,
    inputSchema: () => input,
    validateInput: jsonSchemaValidator(input),
    async run(args, ctx) {
      const url = new URL(decl.url);
      const headers = new Headers({ "content-type": "application/json", accept: "application/json" });
      if (decl.auth) applyAuth(decl.auth, url, headers, ctx.secrets, label);
      const body = JSON.stringify({ query: decl.query, variables: args ?? {} });
      const mask = maskerFor(ctx.secrets);
      const response = await fetchUpstream(ctx, deps.gate, policy.timeoutMs ?? 30_000, url.href, { method: "POST", headers, body });
      if (!response.ok) throw await upstreamFailure(response, mask, url.host);
      return toToolResult(response, decl.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, mask);
    },
  });
}

/** The `graphql` section: one tool per declared operation of a GraphQL endpoint. */
export const graphQlKind: AdapterKind<GraphQl> = {
  label: "GraphQL",
  schema: GraphQlSchema,
  upstreamUrl: (decl) => decl.url,
  tools: (decl, deps) => [toolOf(decl, deps)],
};
