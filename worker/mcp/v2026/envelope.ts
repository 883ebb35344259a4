import { isPlainObject } from "../../../src/json";
import { isLogLevel, type LogLevel } from "../../../src/mcp/messages";
import { META_KEYS, metaOf } from "../../../src/mcp/meta";

/** What a modern request says about itself in its `_meta`: nothing of it outlives the request. */
export interface Envelope {
  version: string;
  /** The client's capabilities for this request (the next requests may declare others). */
  capabilities: Readonly<Record<string, unknown>>;
  clientInfo?: { name: string; version: string };
  /** notifications/message only when set, and only at or above it. */
  logLevel?: LogLevel;
}

/** Does the message claim the per-request envelope (its _meta names a protocol version key)? */
export function claimsEnvelope(params: unknown): boolean {
  const meta = metaOf(params);
  return meta !== undefined && META_KEYS.protocolVersion in meta;
}

/** The version a claim names, when it is a string. */
export function claimedVersion(params: unknown): string | undefined {
  const value = metaOf(params)?.[META_KEYS.protocolVersion];
  return typeof value === "string" ? value : undefined;
}

/** The envelope of a request's params, or the first problem with it (a -32602 for the caller). */
export function readEnvelope(params: unknown): Envelope | { problem: string } {
  const meta = metaOf(params);
  if (!meta) return { problem: "params._meta is missing" };
  const version = meta[META_KEYS.protocolVersion];
  const capabilities = meta[META_KEYS.clientCapabilities];
  const clientInfo = meta[META_KEYS.clientInfo];
  const logLevel = meta[META_KEYS.logLevel];
  if (version === undefined) return { problem: `_meta["${META_KEYS.protocolVersion}"] is missing` };
  if (typeof version !== "string") return { problem: `_meta["${META_KEYS.protocolVersion}"] must be a string` };
  if (capabilities === undefined) return { problem: `_meta["${META_KEYS.clientCapabilities}"] is missing` };
  if (!isPlainObject(capabilities)) return { problem: `_meta["${META_KEYS.clientCapabilities}"] must be an object` };
  if (
    clientInfo !== undefined &&
    !(isPlainObject(clientInfo) && typeof clientInfo.name === "string" && typeof clientInfo.version === "string")
  ) {
    return { problem: `_meta["${META_KEYS.clientInfo}"] must be { name, version }` };
  }
  if (logLevel !== undefined && !isLogLevel(logLevel))
    return { problem: `_meta["${META_KEYS.logLevel}"] is not a log level` };
  return {
    version,
    capabilities,
    ...(clientInfo === undefined
      ? {}
      : { clientInfo: { name: clientInfo.name as string, version: clientInfo.version as string } }),
    ...(logLevel === undefined ? {} : { logLevel }),
  };
}
