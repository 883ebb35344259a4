import { describe, expect, it } from "vitest";
import { checkTenant } from "../../../worker/tenant/tenant";
import { tenantConfigError as refusal } from "../helpers/config-error";

const HASH = "a".repeat(64);
const tenant = (mcp: unknown[]) => ({
  name: "acme",
  tools: ["add"],
  keys: [{ name: "ops", hash: HASH, scopes: ["admin"] }],
  mcp,
});
const server = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  url: `https://${name}.example.com/mcp`,
  ...extra,
});

describe("namespaced remote MCP tools", () => {
  it("refuses two servers without a prefix, naming the later one's prefix field", () => {
    expect(refusal(tenant([server("github"), server("jira")]))).toMatch(
      /mcp\[1\]\.prefix: the servers "github" \(mcp\[0\]\) and "jira" share the prefix "" and may both have a tool/,
    );
  });

  it("refuses the same prefix twice, and declared tools of the same name", () => {
    expect(refusal(tenant([server("a", { prefix: "x_" }), server("b", { prefix: "x_" })]))).toMatch(
      /mcp\[1\]\.prefix: .*share the prefix "x_"/,
    );
    const lists = [server("a", { tools: ["search", "get"] }), server("b", { tools: ["search"] })];
    expect(refusal(tenant(lists))).toMatch(/mcp\[1\]\.prefix: .*both list "search"/);
  });

  it("takes servers with prefixes of their own, or with disjoint tool lists", () => {
    expect(() =>
      checkTenant(tenant([server("github", { prefix: "gh_" }), server("jira", { prefix: "jira_" })])),
    ).not.toThrow();
    expect(() =>
      checkTenant(tenant([server("a", { tools: ["search"] }), server("b", { tools: ["get"] })])),
    ).not.toThrow();
    expect(() => checkTenant(tenant([server("one")]))).not.toThrow();
  });
});
