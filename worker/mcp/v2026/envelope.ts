import { isLogLevel, type LogLevel } from "../protocol";

/** The reserved `_meta` keys of 2026-07-28 (basic/index: per-request and per-response protocol fields). */
export const META_KEYS = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
} as const;

/** What a modern request says about itself in its `_meta`: nothing of it outlives the request. */
export interface Envelope {
  version: string;
  /** The client's capabilities for this request (the next requests may declare others). */
  capabilities: Readonly<Record<string, unknown>>;
  clientInfo?: { name: string; version: string };
  /** notifications/message only when set, and only at or above it. */
  logLevel?: LogLevel;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A message's params._meta, when it is an object. */
export function metaOf(params: unknown): Record<string, unknown> | undefined {
  const meta = isObject(params) ? params._meta : undefined;
  return isObject(meta) ? meta : undefined;
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
  if (!isObject(capabilities)) return { problem: `_meta["${META_KEYS.clientCapabilities}"] must be an object` };
  if (clientInfo !== undefined && !(isObject(clientInfo) && typeof clientInfo.name === "string" && typeof clientInfo.version === "string")) {
    return { problem: `_meta["${META_KEYS.clientInfo}"] must be { name, version }` };
  }
  if (logLevel !== undefined && !isLogLevel(logLevel)) return { problem: `_meta["${META_KEYS.logLevel}"] is not a log level` };
  return {
    version,
    capabilities,
    ...(clientInfo === undefined ? {} : { clientInfo: { name: clientInfo.name as string, version: clientInfo.version as string } }),
    ...(logLevel === undefined ? {} : { logLevel }),
  };
}
