import type { Tool } from "../../src/tool";

/**
 * How a tool takes part in tasks: a tool that runs beyond its request (detached, auto) may run as a
 * task; `taskSupport: "required"` runs only so. An inline tool never becomes a task.
 */
export function taskSupportOf(tool: Pick<Tool, "policy">): "forbidden" | "optional" | "required" {
  if ((tool.policy.execution ?? "inline") === "inline") return "forbidden";
  return tool.policy.taskSupport ?? "optional";
}
