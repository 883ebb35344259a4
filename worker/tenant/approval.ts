import type { ApprovalReason } from "../../src/contract/approvals";
import type { ToolInfo } from "../../src/contract/tools";
import type { Risk } from "../../src/policy";
import type { Tool } from "../../src/tool";
import type { TenantConfig } from "./config";

/** A part of a tenant's approval rule, named as its configuration writes it. */
export type TenantApprovalRule = "requireApprovalFor.tools" | "requireApprovalFor.risk";

/** The tenant's approval rule, read once from its configuration (tenantApproval). */
export interface TenantApproval {
  /** Whether the rule can hold no call (no `requireApprovalFor`, or empty lists). */
  readonly empty: boolean;
  /** The parts of the rule that hold calls of this tool for an admin; empty when none does. */
  rules(tool: Tool): readonly TenantApprovalRule[];
}

/** A tool's risk: "low" unless its policy says otherwise. */
export const riskOf = (tool: Tool): Risk => tool.policy.risk ?? "low";

const NONE: readonly TenantApprovalRule[] = Object.freeze([]);

/** Per configuration (a tenant's is parsed once): the permission hook asks on every call. */
const read = new WeakMap<TenantConfig, TenantApproval>();

/**
 * The tenant's approval rule, decided here alone: a call waits for an admin when its tool is named in
 * `requireApprovalFor.tools` or its risk is listed in `requireApprovalFor.risk`. The permission hook
 * (registry.ts), GET /v1/tools's `approval` (tool-info.ts) and the approval reasons all ask it.
 */
export function tenantApproval(config: TenantConfig): TenantApproval {
  let approval = read.get(config);
  if (approval) return approval;
  const tools = new Set(config.requireApprovalFor?.tools ?? []);
  const risks = new Set<Risk>(config.requireApprovalFor?.risk ?? []);
  approval = {
    empty: tools.size === 0 && risks.size === 0,
    rules(tool) {
      // The search tool only shows tools the caller may use, and only while it runs for that caller: a
      // parked search would finish for its owner without the key's allow-list. What it finds is approved
      // as usual when called.
      if (tool.name === config.search?.tool) return NONE;
      const byName = tools.has(tool.name);
      const byRisk = risks.has(riskOf(tool));
      if (!byName && !byRisk) return NONE;
      if (byName && byRisk) return ["requireApprovalFor.tools", "requireApprovalFor.risk"];
      return [byName ? "requireApprovalFor.tools" : "requireApprovalFor.risk"];
    },
  };
  read.set(config, approval);
  return approval;
}

/**
 * A tool's approval as GET /v1/tools shows it: "always" when its policy or the tenant's rule asks for
 * every call, "conditional" when its policy's predicate decides per call, else "never".
 */
export function effectiveApproval(tool: Tool, config: TenantConfig): ToolInfo["policy"]["approval"] {
  const { approval } = tool.policy;
  if (approval === "always" || tenantApproval(config).rules(tool).length > 0) return "always";
  return typeof approval === "function" ? "conditional" : "never";
}

const RULE_DETAIL: Record<TenantApprovalRule, (tool: Tool) => string> = {
  "requireApprovalFor.tools": (tool) => `The tenant requires approval for "${tool.name}".`,
  "requireApprovalFor.risk": (tool) => `The tenant requires approval for tools of risk "${riskOf(tool)}".`,
};

/**
 * Why a call of this tool waits for an admin, as the tenant's rules and the tool's policy say now:
 * each rule that asks for approval, named as it is written. A call that none of them explains was
 * parked by a permission hook (code, not configuration).
 */
export function approvalReasons(tool: Tool | undefined, config: TenantConfig): ApprovalReason[] {
  if (!tool) return [{ rule: "unknown", detail: "The tool is no longer offered; no rule can be named." }];
  const reasons: ApprovalReason[] = [];
  const approval = tool.policy.approval;
  if (approval === "always")
    reasons.push({
      rule: "policy.approval",
      detail: `The tool's policy requires approval for every call (approval: "always").`,
    });
  if (typeof approval === "function")
    reasons.push({ rule: "policy.approval", detail: "The tool's approval rule matched these arguments." });
  for (const rule of tenantApproval(config).rules(tool)) reasons.push({ rule, detail: RULE_DETAIL[rule](tool) });
  if (reasons.length === 0) reasons.push({ rule: "hook", detail: "A permission hook asked for it." });
  return reasons;
}
