import type { ApprovalReason } from "../src/contract/approvals";
import type { Tool } from "../src/tool";
import type { TenantConfig } from "./config";

/**
 * Why a call of this tool waits for an admin, as the tenant's rules and the tool's policy say now:
 * each rule that asks for approval, named as it is written. A call that none of them explains was
 * parked by a permission hook (code, not configuration).
 */
export function approvalReasons(tool: Tool | undefined, config: TenantConfig): ApprovalReason[] {
  if (!tool) return [{ rule: "unknown", detail: "The tool is no longer offered; no rule can be named." }];
  const reasons: ApprovalReason[] = [];
  const risk = tool.policy.risk ?? "low";
  const approval = tool.policy.approval;
  if (approval === "always") reasons.push({ rule: "policy.approval", detail: `The tool's policy requires approval for every call (approval: "always").` });
  if (typeof approval === "function") reasons.push({ rule: "policy.approval", detail: "The tool's approval rule matched these arguments." });
  if (config.requireApprovalFor?.tools?.includes(tool.name)) {
    reasons.push({ rule: "requireApprovalFor.tools", detail: `The tenant requires approval for "${tool.name}".` });
  }
  if (config.requireApprovalFor?.risk?.includes(risk)) {
    reasons.push({ rule: "requireApprovalFor.risk", detail: `The tenant requires approval for tools of risk "${risk}".` });
  }
  if (reasons.length === 0) reasons.push({ rule: "hook", detail: "A permission hook asked for it." });
  return reasons;
}
