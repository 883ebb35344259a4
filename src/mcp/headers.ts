/**
 * MCP's HTTP headers (transports/streamable-http): their names, and how 2026-07-28 mirrors body values
 * into them (Standard Request Headers, Custom Headers from Tool Parameters): the client writes them,
 * the server checks them against the body.
 */

export const MCP_HEADERS = {
  protocolVersion: "MCP-Protocol-Version",
  sessionId: "Mcp-Session-Id",
  method: "Mcp-Method",
  name: "Mcp-Name",
} as const;

/** The header a tool parameter marked `x-mcp-header: name` is mirrored into. */
export function paramHeader(name: string): string {
  return `Mcp-Param-${name}`;
}

/** The body field Mcp-Name mirrors, per method. */
export function mirroredName(method: string, params: Record<string, unknown> | undefined): unknown {
  if (method === "tools/call" || method === "prompts/get") return params?.name;
  if (method === "resources/read") return params?.uri;
  if (method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel") return params?.taskId;
  return undefined;
}

const SENTINEL_START = "=?base64?";
const SENTINEL_END = "?=";
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Visible ASCII, space and tab: what an HTTP field value may hold (RFC 9110 §5.5). */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;

function isSentinel(value: string): boolean {
  const enclosed = value.startsWith(SENTINEL_START) && value.endsWith(SENTINEL_END);
  return enclosed && value.length >= SENTINEL_START.length + SENTINEL_END.length;
}

/** A header value as sent: plain visible ASCII as is, anything else as `=?base64?…?=`. */
export function encodeHeaderValue(value: string): string {
  const plain = FIELD_VALUE.test(value) && value.trim() === value && !isSentinel(value);
  if (plain) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `${SENTINEL_START}${btoa(binary)}${SENTINEL_END}`;
}

/** A header value as received: `=?base64?…?=` decoded (Base64 of UTF-8, strictly), else as is; undefined if bad. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!FIELD_VALUE.test(value)) return undefined;
  if (!isSentinel(value)) return value;
  const encoded = value.slice(SENTINEL_START.length, value.length - SENTINEL_END.length);
  if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) return undefined;
  try {
    const bytes = Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return undefined;
  }
}
