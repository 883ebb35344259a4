import { isPlainObject } from "../json";

/** The reserved `_meta` keys of 2026-07-28 (basic/index: per-request and per-response protocol fields). */
export const META_KEYS = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
} as const;

/** The tasks extension's name, under `extensions` in either side's capabilities. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** A message's params._meta, when it is an object. */
export function metaOf(params: unknown): Record<string, unknown> | undefined {
  const meta = isPlainObject(params) ? params._meta : undefined;
  return isPlainObject(meta) ? meta : undefined;
}
