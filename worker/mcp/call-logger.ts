import type { JsonValue } from "../../src/json";
import { createMasker } from "../../src/mask";
import { logPasses, type LogLevel, type NotificationMethod } from "../../src/mcp/messages";
import type { ToolLogger } from "../../src/tool";

interface Sink {
  notify(method: NotificationMethod, params: Record<string, unknown>): void;
  /** The minimum level the client asked for; undefined: it asked for no logs. */
  logLevel(): LogLevel | undefined;
}

/** Whatever a tool logged, as JSON (values JSON cannot hold become text). */
function toJson(value: unknown): JsonValue {
  try {
    return JSON.parse(JSON.stringify(value) ?? "null") as JsonValue;
  } catch {
    return String(value);
  }
}

/**
 * A tool's ctx.log as MCP logging: notifications/message on the call's stream, filtered by the level
 * the client asked for (its session's, or its 2026 request's _meta) and masked with the tenant's
 * secrets (tools may log what they were given).
 */
export function createCallLogger(
  tool: string,
  secrets: Readonly<Record<string, string>> | undefined,
  sink: Sink,
): ToolLogger {
  let mask: ((value: JsonValue) => JsonValue) | undefined;
  const send = (level: LogLevel) => (message: string, data?: unknown) => {
    const minimum = sink.logLevel();
    if (minimum === undefined || !logPasses(level, minimum)) return;
    const payload: JsonValue = data === undefined ? message : { message, data: toJson(data) };
    sink.notify("notifications/message", {
      level,
      logger: tool,
      data: (mask ??= createMasker(Object.values(secrets ?? {})))(payload),
    });
  };
  return { debug: send("debug"), info: send("info"), warn: send("warning"), error: send("error") };
}
