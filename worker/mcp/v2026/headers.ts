import { RpcCode } from "../../../src/mcp/errors";
import { decodeHeaderValue, mirroredName, paramHeader } from "../../../src/mcp/headers";
import type { RpcRequest } from "../../../src/mcp/messages";
import type { Refusal } from "../transport/classify";
import { trimOws, type McpHeaders } from "../transport/headers";

/**
 * The HTTP headers a 2026-07-28 POST mirrors from its body (transports/streamable-http: Standard
 * Request Headers, Custom Headers from Tool Parameters): they must be there and agree with the body,
 * or the request is refused with 400 / -32020 (HeaderMismatch) before anything runs.
 */

const MAX_ANNOTATIONS = 32;
const MAX_DEPTH = 8;

const refusal = (request: RpcRequest, message: string): Refusal => ({
  status: 400,
  code: RpcCode.headerMismatch,
  message: `Header mismatch: ${message}.`,
  id: request.id,
});

/**
 * MCP-Protocol-Version, Mcp-Method and (for tools/call and the task methods) Mcp-Name: present and matching the body.
 */
export function checkStandardHeaders(request: RpcRequest, headers: McpHeaders): Refusal | undefined {
  if (headers.version === undefined) return refusal(request, "the MCP-Protocol-Version header is missing");
  if (headers.method === undefined) return refusal(request, "the Mcp-Method header is missing");
  const source = mirroredName(request.method, request.params);
  if (typeof source !== "string") return undefined;
  if (headers.name === undefined)
    return refusal(request, `the Mcp-Name header is missing (the body names ${JSON.stringify(source.slice(0, 100))})`);
  const name = decodeHeaderValue(headers.name);
  if (name === undefined) return refusal(request, "the Mcp-Name header is not a valid value");
  if (name !== source)
    return refusal(
      request,
      `Mcp-Name is ${JSON.stringify(name.slice(0, 100))} but the body names ${JSON.stringify(source.slice(0, 100))}`,
    );
  return undefined;
}

interface Annotation {
  path: string[];
  header: string;
}

/** The x-mcp-header annotations of an input schema: properties reached through `properties` only. */
function annotationsOf(schema: unknown, path: string[] = [], found: Annotation[] = []): Annotation[] {
  if (path.length > MAX_DEPTH || typeof schema !== "object" || schema === null) return found;
  const properties = (schema as { properties?: unknown }).properties;
  if (typeof properties !== "object" || properties === null) return found;
  for (const [key, property] of Object.entries(properties)) {
    if (found.length >= MAX_ANNOTATIONS) break;
    const header =
      typeof property === "object" && property !== null
        ? (property as Record<string, unknown>)["x-mcp-header"]
        : undefined;
    if (typeof header === "string") found.push({ path: [...path, key], header });
    else annotationsOf(property, [...path, key], found);
  }
  return found;
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path)
    value =
      typeof value === "object" && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)[key]
        : undefined;
  return value;
}

function matches(sent: string, value: unknown): boolean {
  if (typeof value === "string") return sent === value;
  if (typeof value === "boolean") return sent === String(value);
  // Numbers compare as numbers: "42.0" and 42 agree.
  if (typeof value === "number") return sent.trim() !== "" && Number(sent) === value;
  return true; // objects and arrays are not mirrored into headers
}

/**
 * Mcp-Param-{Name} headers of a tools/call against the tool's x-mcp-header annotations: a value in
 * the arguments needs its header, decoded equal to it; a header for an absent value is ignored.
 */
export function checkParamHeaders(request: RpcRequest, inputSchema: unknown, headers: Headers): Refusal | undefined {
  const args = request.params?.arguments;
  for (const { path, header } of annotationsOf(inputSchema)) {
    const value = valueAt(args, path);
    if (value === undefined || value === null) continue;
    const raw = trimOws(headers.get(paramHeader(header)));
    const where = `${paramHeader(header)} (argument ${path.join(".")})`;
    if (raw === undefined) return refusal(request, `${where} is missing`);
    const sent = decodeHeaderValue(raw);
    if (sent === undefined) return refusal(request, `${where} is not a valid value (bad characters or Base64)`);
    if (!matches(sent, value)) return refusal(request, `${where} does not match the argument`);
  }
  return undefined;
}
