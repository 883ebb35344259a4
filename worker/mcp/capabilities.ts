import { RpcCode } from "../../src/mcp/errors";
import { TASKS_EXTENSION } from "../../src/mcp/meta";
import { RpcFailure } from "./jsonrpc";
import type { Envelope } from "./v2026/envelope";

/** Who answers: initialize's serverInfo (legacy), every result's _meta (2026). */
export const SERVER_INFO = { name: "toolgate", title: "toolgate", version: "0.1.0" } as const;

/** What /mcp offers a legacy session (initialize's capabilities). */
export const CAPABILITIES = {
  // No notifications/tools/list_changed is ever sent (nor a subscriptions/listen stream served), so
  // none is promised. The list changes with a deploy or when a remote MCP adapter's list changes,
  // which clients see on their next tools/list (2026 clients: once its ttlMs has passed).
  tools: { listChanged: false },
  // Tools' ctx.log: per session (logging/setLevel) before 2026, per request (_meta logLevel) since.
  logging: {},
};

/** 2026-07-28 adds the tasks extension: a task is a call's ledger record (tasks.ts). */
export const MODERN_CAPABILITIES = { ...CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } };

/** Did this request's client declare the extension (per request: 2026 keeps nothing between requests)? */
export function declaresTasks(envelope: Envelope | undefined): boolean {
  const extensions = envelope?.capabilities.extensions;
  return typeof extensions === "object" && extensions !== null && TASKS_EXTENSION in extensions;
}

/** -32021: the tool runs only as a task, and this request's client cannot follow one. */
export function tasksRequired(what: string): RpcFailure {
  const message = `Missing required client capability: ${what} needs the ${TASKS_EXTENSION} extension.`;
  const requiredCapabilities = { extensions: { [TASKS_EXTENSION]: {} } };
  return new RpcFailure(RpcCode.missingClientCapability, message, { requiredCapabilities });
}
