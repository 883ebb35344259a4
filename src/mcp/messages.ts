/**
 * The JSON-RPC messages of MCP that toolgate's server and client exchange: their shapes, the methods
 * either side sends or answers, and the logging levels.
 */

export type RequestId = string | number;

export interface RpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface RpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export type RpcResponse =
  | { jsonrpc: "2.0"; id: RequestId; result: Record<string, unknown> }
  | { jsonrpc: "2.0"; id: RequestId | null; error: { code: number; message: string; data?: unknown } };

/**
 * The requests toolgate sends to a server or answers as one (requests to a client are src/ask.ts's
 * AskMethod). Which era has which: worker/mcp/dispatch.ts for the server, src/adapters/mcp/ for the client.
 */
export type RequestMethod =
  | "initialize"
  | "ping"
  | "server/discover"
  | "tools/list"
  | "tools/call"
  | "logging/setLevel"
  | "subscriptions/listen"
  | "tasks/get"
  | "tasks/result"
  | "tasks/update"
  | "tasks/cancel";

/** The notifications toolgate sends or reads, either way. */
export type NotificationMethod =
  | "notifications/initialized"
  | "notifications/cancelled"
  | "notifications/progress"
  | "notifications/message"
  | "notifications/tools/list_changed";

export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: unknown): value is LogLevel {
  return (LOG_LEVELS as readonly unknown[]).includes(value);
}

/** Does a message at `level` pass the minimum the client asked for? */
export function logPasses(level: LogLevel, minimum: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(minimum);
}
