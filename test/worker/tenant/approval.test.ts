import { describe, expect, it } from "vitest";
import { executeCall } from "../../../src/pipeline/execute";
import { approvalReasons, tenantApproval, type TenantApprovalRule } from "../../../worker/tenant/approval";
import { createTenant } from "../../../worker/tenant/tenant";
import { toolInfo } from "../../../worker/tenant/tool-info";

/**
 * The tenant's approval rule (worker/tenant/approval.ts: a tool named in requireApprovalFor.tools, or
 * whose risk is in requireApprovalFor.risk) is decided in one place, so the permission hook that
 * parks a call, GET /v1/tools's `approval` and the reasons an admin reads always agree.
 */

const HASH = "a".repeat(64);
const ARGS: Record<string, Record<string, unknown>> = { add: { a: 1, b: 2 }, echo: { text: "hi" } };

function tenantWith(requireApprovalFor?: { tools?: string[]; risk?: string[] }) {
  return createTenant({
    name: "acme",
    tools: ["add", "echo", "send_message"],
    // add keeps the default risk ("low"); send_message's policy asks for approval on every call.
    policies: { echo: { risk: "medium" } },
    keys: [{ name: "ops", hash: HASH, scopes: ["admin"] }],
    ...(requireApprovalFor ? { requireApprovalFor } : {}),
  });
}

type Expected = Record<"add" | "echo", TenantApprovalRule[]>;
const cases: [string, { tools?: string[]; risk?: string[] } | undefined, Expected][] = [
  ["no rule", undefined, { add: [], echo: [] }],
  ["empty lists", { tools: [], risk: [] }, { add: [], echo: [] }],
  ["a tool by name", { tools: ["add"] }, { add: ["requireApprovalFor.tools"], echo: [] }],
  ["a risk", { risk: ["medium"] }, { add: [], echo: ["requireApprovalFor.risk"] }],
  ["the default risk", { risk: ["low"] }, { add: ["requireApprovalFor.risk"], echo: [] }],
  [
    "name and risk at once",
    { tools: ["echo"], risk: ["medium", "high"] },
    { add: [], echo: ["requireApprovalFor.tools", "requireApprovalFor.risk"] },
  ],
];

describe("the tenant's approval rule", () => {
  for (const [what, rule, expected] of cases) {
    it(`holds the same tools everywhere: ${what}`, async () => {
      const tenant = tenantWith(rule);
      const approval = tenantApproval(tenant.config);
      expect(approval.empty).toBe(expected.add.length === 0 && expected.echo.length === 0);
      // No deny list and no rule: the tenant adds no permission hook at all.
      expect(tenant.hooks.permission === undefined).toBe(approval.empty);
      for (const name of ["add", "echo"] as const) {
        const tool = tenant.registry.get(name)!;
        const held = expected[name].length > 0;
        expect(approval.rules(tool)).toEqual(expected[name]);
        const result = await executeCall(
          { id: `c-${name}`, name, arguments: ARGS[name] },
          { registry: tenant.registry, hooks: tenant.hooks },
        );
        expect(result.ok ? "ran" : result.error.code).toBe(held ? "approval_required" : "ran");
        expect(toolInfo(tool, tenant).policy.approval).toBe(held ? "always" : "never");
        expect(approvalReasons(tool, tenant.config).map((reason) => reason.rule)).toEqual(
          held ? expected[name] : ["hook"],
        );
      }
      // The tool's own policy asks on every call, whatever the tenant's rule says; the tenant's parts are added to it.
      const send = tenant.registry.get("send_message")!;
      expect(toolInfo(send, tenant).policy.approval).toBe("always");
      expect(approvalReasons(send, tenant.config).map((reason) => reason.rule)).toEqual([
        "policy.approval",
        ...approval.rules(send),
      ]);
    });
  }

  it("names the part of the rule and the risk in each reason", () => {
    const tenant = tenantWith({ tools: ["echo"], risk: ["medium"] });
    expect(approvalReasons(tenant.registry.get("echo"), tenant.config)).toEqual([
      { rule: "requireApprovalFor.tools", detail: 'The tenant requires approval for "echo".' },
      { rule: "requireApprovalFor.risk", detail: 'The tenant requires approval for tools of risk "medium".' },
    ]);
    expect(approvalReasons(undefined, tenant.config)).toEqual([
      { rule: "unknown", detail: "The tool is no longer offered; no rule can be named." },
    ]);
  });
});
