import { describe, expect, it } from "vitest";
import { canBeAsked } from "../../../src/ask";
import { askableBy, askFlagsOf, askMethodsOf, unsupportedBy } from "../../../worker/mcp/client-asks";

/**
 * What a client declared (a legacy one at initialize, as the bits its session id carries),
 * and what it must not be sent.
 */

const methods = (capabilities: Record<string, unknown>) => [...askMethodsOf(askFlagsOf(capabilities))].sort();

describe("a legacy client's declared capabilities", () => {
  it("elicitation: {} is form mode only; each capability gives its method", () => {
    expect(methods({})).toEqual([]);
    expect(methods({ elicitation: {} })).toEqual(["elicitation/create"]);
    expect(methods({ elicitation: { url: {} } })).toEqual(["elicitation/create"]);
    expect(methods({ elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } })).toEqual([
      "elicitation/create",
      "roots/list",
      "sampling/createMessage",
    ]);
    // Not objects: not declared.
    expect(methods({ elicitation: true, sampling: null, roots: "yes" })).toEqual([]);
  });

  it("a URL-mode elicitation or a sampling request with tools needs its own declaration", () => {
    const url = {
      method: "elicitation/create" as const,
      params: { mode: "url", message: "Sign in", url: "https://example.com", elicitationId: "e1" },
    };
    const form = { method: "elicitation/create" as const, params: { message: "Who?" } };
    const withTools = { method: "sampling/createMessage" as const, params: { messages: [], maxTokens: 10, tools: [] } };
    const asks = (capabilities: Record<string, unknown>, request: typeof url | typeof form) =>
      canBeAsked({ responses: {}, ...askableBy(askFlagsOf(capabilities)) }, request);
    // elicitation: {} is form mode only; each mode is asked only when declared.
    expect([asks({ elicitation: {} }, form), asks({ elicitation: {} }, url)]).toEqual([true, false]);
    expect([asks({ elicitation: { form: {} } }, form), asks({ elicitation: { form: {} } }, url)]).toEqual([
      true,
      false,
    ]);
    expect([asks({ elicitation: { url: {} } }, form), asks({ elicitation: { url: {} } }, url)]).toEqual([false, true]);
    expect([
      asks({ elicitation: { form: {}, url: {} } }, form),
      asks({ elicitation: { form: {}, url: {} } }, url),
    ]).toEqual([true, true]);
    expect(asks({ sampling: {} }, form)).toBe(false);
    expect(unsupportedBy(askFlagsOf({ sampling: {} }), withTools)).toMatch(/sampling with tools/);
    expect(unsupportedBy(askFlagsOf({ sampling: { tools: {} } }), withTools)).toBeUndefined();
    expect(
      unsupportedBy(askFlagsOf({ elicitation: {} }), { method: "elicitation/create", params: { message: "?" } }),
    ).toBeUndefined();
  });
});
