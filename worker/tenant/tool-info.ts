import type { ToolInfo } from "../../src/contract/tools";
import type { ConcurrencyPolicy } from "../../src/policy";
import type { Tool } from "../../src/tool";
import { effectiveApproval, riskOf } from "./approval";
import type { Tenant } from "./tenant";

/**
 * A tool with its effective policy as plain JSON (GET /v1/tools): the tenant's approval rules and
 * deny list folded in, functions (approval predicates, gate keys) reduced to what they mean.
 */
export function toolInfo(tool: Tool, tenant: Tenant): ToolInfo {
  const { policy } = tool;
  const gate = policy.concurrency;
  return {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: tool.description,
    source: tool.source,
    hash: tool.hash,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    ...(tool.render === undefined ? {} : { render: tool.render }),
    policy: {
      risk: riskOf(tool),
      readOnly: policy.readOnly ?? false,
      idempotent: policy.idempotent ?? false,
      approval: effectiveApproval(tool, tenant.config),
      ...(gate ? { concurrency: concurrencyInfo(gate) } : {}),
      ...(policy.timeoutMs === undefined ? {} : { timeoutMs: policy.timeoutMs }),
      ...(policy.retry === undefined ? {} : { retry: { attempts: policy.retry.attempts } }),
      ...(policy.outputBudget === undefined ? {} : { outputBudget: policy.outputBudget }),
      denied: tenant.config.deny.includes(tool.name),
    },
  };
}

/**
 * The gate's rules as they are (every rule is JSON), its group, and its key: a pointer shown, a function only noted.
 */
function concurrencyInfo({ group, key, ...rules }: ConcurrencyPolicy): NonNullable<ToolInfo["policy"]["concurrency"]> {
  return {
    ...rules,
    ...(group === undefined ? {} : { group }),
    keyed: key !== undefined,
    ...(typeof key === "string" ? { key } : {}),
  };
}
