import { isToolError, toolError } from "../errors";
import { jsonSchemaValidator } from "../schema/json-schema";
import type { JsonSchema } from "../json";
import { assembleTool, type ConnectionNeed, type Tool, type ToolContext } from "../tool";
import {
  HttpToolHeadSchema,
  HttpToolSchema,
  parseDeclaration,
  policyOf,
  type HttpTool,
  type HttpToolDeclaration,
} from "./declarations";
import { buildRequest, mappedNames } from "./http-request";
import { DEFAULT_MAX_RESPONSE_BYTES, toToolResult, upstreamFailure } from "./http-response";
import { outputShape } from "./http-output";
import { fetchUpstream, maskerFor } from "./upstream";
import { createMasker, type Masker } from "../mask";
import { labelOf, type AdapterDeps, type AdapterKind } from "./kind";
import { parsedPolicy } from "../policy";

export interface HttpToolDeps extends AdapterDeps {
  /** Recorded as the tool's source. Default "http" (the OpenAPI adapter passes "openapi"). */
  source?: string;
}

const NO_ARGS: JsonSchema = { type: "object", properties: {}, additionalProperties: false };
/** Longest a call waits for the shared rate limit when the tool declares no timeout. */
const DEFAULT_MAX_WAIT_MS = 30_000;

/** Every placeholder must name a declared property, so a typo fails at configuration, not per call. */
function checkMapping(mapped: ReadonlySet<string>, schema: JsonSchema, label: string): void {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) return;
  for (const name of mapped) {
    if (!(name in properties))
      throw new TypeError(`${label}: invalid url/query/headers/body: "${name}" is not a property of input`);
  }
}

/**
 * An HTTP API endpoint as a Tool, from a declaration (data, e.g. a tenant's config). The request
 * goes through ctx.fetch (egress-checked) with ctx.signal (timeout, cancellation); the credential
 * comes from ctx.secrets by name. GET and HEAD are idempotent unless declared otherwise, so the
 * pipeline retries them (honouring Retry-After); other methods only when declared idempotent.
 */
export function httpTool(declaration: HttpToolDeclaration, deps: HttpToolDeps = {}): Tool {
  const label = labelOf(httpKind, declaration);
  return toolOf(parseDeclaration(HttpToolSchema, declaration, label), label, deps);
}

/** The `http` section of a tenant's configuration: one tool per declaration. */
export const httpKind: AdapterKind<HttpTool> = {
  label: "HTTP tool",
  schema: HttpToolSchema,
  upstreamUrl: (decl) => decl.url,
  tools: (decl, deps) => [toolOf(decl, labelOf(httpKind, decl), deps)],
  toolName: (decl) => decl.name,
  // Only what the host reads at build time (HttpToolHeadSchema's fields are HttpTool's).
  head: HttpToolHeadSchema as unknown as AdapterKind<HttpTool>["schema"],
  summary: (decl) => ({ method: decl.method }),
};

function toolOf(decl: HttpTool, label: string, deps: HttpToolDeps): Tool {
  const schema = (decl.input ?? NO_ARGS) as JsonSchema;
  let validateInput: ReturnType<typeof jsonSchemaValidator>;
  try {
    validateInput = jsonSchemaValidator(schema);
  } catch (error) {
    throw new TypeError(`${label}: invalid input: ${error instanceof Error ? error.message : String(error)}`);
  }
  const mapped = mappedNames(decl);
  checkMapping(mapped, schema, label);
  const policy = policyOf(decl);
  policy.idempotent ??= decl.method === "GET" || decl.method === "HEAD";
  parsedPolicy(policy);
  const maxBytes = decl.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const upstream = new URL(decl.url.replace(/\{[^}]*\}/g, "x")).host;
  const shape = outputShape(decl, label, upstream);
  const outputSchema = shape?.schema;
  return assembleTool({
    name: decl.name,
    ...(decl.title === undefined ? {} : { title: decl.title }),
    description: decl.description,
    source: deps.source ?? "http",
    policy,
    ...(decl.render === undefined ? {} : { render: decl.render }),
    inputSchema: () => schema,
    // Checked in run() (the shape), where a mismatch is the upstream's error, not the tool's.
    ...(outputSchema ? { outputSchema: () => outputSchema } : {}),
    validateInput,
    async run(args, ctx) {
      // `tokens`: the user's tokens sent so far, the last this time; an upstream echoing one gets it masked.
      const send = async (tokens: readonly string[]) => {
        const { url, init } = buildRequest(decl, mapped, args, ctx.secrets, tokens.at(-1));
        const mask =
          tokens.length === 0 ? maskerFor(ctx.secrets) : createMasker([...Object.values(ctx.secrets), ...tokens]);
        const response = await fetchUpstream(ctx, deps.gate, policy.timeoutMs ?? DEFAULT_MAX_WAIT_MS, url, init).catch(
          (error: unknown) => {
            throw networkFailure(error, ctx.signal, mask, `${upstream} could not be reached`);
          },
        );
        return { response, mask };
      };
      const { connection } = decl;
      const userToken = connection ? await connectionToken(ctx, connection, label) : undefined;
      let { response, mask } = await send(userToken === undefined ? [] : [userToken]);
      // The user's token refused (revoked at the provider): once more with a new one, or the user asked again.
      if (response.status === 401 && connection && userToken !== undefined) {
        await response.body?.cancel();
        const fresh = await connectionToken(ctx, { ...connection, rejected: userToken }, label);
        ({ response, mask } = await send([userToken, fresh]));
      }
      if (!response.ok) throw await upstreamFailure(response, mask, upstream);
      const read = await toToolResult(response, maxBytes, mask).catch((error: unknown) => {
        throw networkFailure(error, ctx.signal, mask, `${upstream}'s response body broke off`);
      });
      return shape
        ? shape.apply(read, { type: response.headers.get("content-type") ?? "", status: response.status, maxBytes })
        : read;
    },
  });
}

/** The user's token for a tool acting as the user; a runtime without connections refuses the call. */
function connectionToken(ctx: ToolContext, use: ConnectionNeed, label: string): Promise<string> {
  if (!ctx.connectionToken)
    throw toolError("denied", `${label} acts as the user through connection "${use.name}", which is not set up here`);
  return ctx.connectionToken(use, ctx);
}

/**
 * A connection refused, reset or cut mid-body is the upstream's failure, not the tool's: an
 * upstream_error (retried when the tool is idempotent). Aborts and our own errors pass unchanged.
 */
function networkFailure(error: unknown, signal: AbortSignal, mask: Masker, what: string): unknown {
  if (signal.aborted || isToolError(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return toolError("upstream_error", `${what}: ${mask.text(reason)}`, { retryable: true, cause: error });
}
