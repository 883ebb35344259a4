import { describe, expect, it } from "vitest";
import { askFlagsOf, askMethodsOf, unsupportedBy } from "../../worker/mcp/client-asks";

/** What a legacy client declared at initialize, as the bits its session id carries, and what it must not be sent. */

const methods = (capabilities: Record<string, unknown>) => [...askMethodsOf(askFlagsOf(capabilities))].sort();

describe("a legacy client's declared capabilities", () => {
  it("elicitation: {} is form mode only; each capability gives its method", () => {
    expect(methods({})).toEqual([]);
    expect(methods({ elicitation: {} })).toEqual(["elicitation/create"]);
    expect(methods({ elicitation: { url: {} } })).toEqual([]);
    expect(methods({ elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } })).toEqual(["elicitation/create", "roots/list", "sampling/createMessage"]);
    // Not objects: not declared.
    expect(methods({ elicitation: true, sampling: null, roots: "yes" })).toEqual([]);
  });

  it("a URL-mode elicitation or a sampling request with tools needs its own declaration", () => {
    const url = { method: "elicitation/create" as const, params: { mode: "url", message: "Sign in", url: "https://example.com", elicitationId: "e1" } };
    const withTools = { method: "sampling/createMessage" as const, params: { messages: [], maxTokens: 10, tools: [] } };
    expect(unsupportedBy(askFlagsOf({ elicitation: {} }), url)).toMatch(/URL-mode/);
    expect(unsupportedBy(askFlagsOf({ elicitation: { form: {}, url: {} } }), url)).toBeUndefined();
    expect(unsupportedBy(askFlagsOf({ sampling: {} }), withTools)).toMatch(/sampling with tools/);
    expect(unsupportedBy(askFlagsOf({ sampling: { tools: {} } }), withTools)).toBeUndefined();
    expect(unsupportedBy(askFlagsOf({ elicitation: {} }), { method: "elicitation/create", params: { message: "?" } })).toBeUndefined();
  });
});
