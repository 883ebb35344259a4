import { SUPPORTED_VERSIONS } from "./versions";

/** The JSON-RPC error codes MCP uses, as toolgate's server sends them and its client reads them. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Transport-level refusals (missing session …), as the SDK's servers answer them. */
  badRequest: -32000,
  sessionNotFound: -32001,
  /** 2025-11-25: the request needs URL-mode elicitations completed first (data: elicitations). */
  urlElicitationRequired: -32042,
  /** 2026-07-28: HTTP headers missing, malformed or disagreeing with the body. */
  headerMismatch: -32020,
  /** 2026-07-28: the request needs a client capability its _meta did not declare. */
  missingClientCapability: -32021,
  /** 2026-07-28: a protocol version this server does not serve (data: supported, requested). */
  unsupportedVersion: -32022,
} as const;

/** MissingRequiredClientCapability: -32021, and -32003 as the tasks extension's text numbers it (clients take both). */
export const MISSING_CAPABILITY_CODES: ReadonlySet<number> = new Set([RpcCode.missingClientCapability, -32003]);

/** How a legacy server refuses a request for want of a session ("No valid session ID", "Session not found"). */
export const SESSION_REFUSAL_CODES: ReadonlySet<number> = new Set([RpcCode.badRequest, RpcCode.sessionNotFound]);

/** The longest requested version an UnsupportedProtocolVersion error repeats. */
const MAX_REQUESTED_CHARS = 40;

/** UnsupportedProtocolVersion's data: every revision served (a client picks one it speaks) and the one asked for. */
export function unsupportedVersionData(requested: string): { supported: readonly string[]; requested: string } {
  return { supported: SUPPORTED_VERSIONS, requested: requested.slice(0, MAX_REQUESTED_CHARS) };
}
