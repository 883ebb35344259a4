import { describe, expect, it } from "vitest";
import { declareTools } from "../../../src/codemode/declarations";

describe("declareTools", () => {
  it("declares one async method per tool, typed from its schemas, with descriptions as JSDoc", () => {
    const text = declareTools([
      {
        name: "get-order",
        description: "Read one order. Ends */ here.",
        inputSchema: {
          type: "object",
          properties: {
            id: { type: "string", description: "The order's id" },
            "with items": { type: "boolean" },
            status: { enum: ["open", "paid", null] },
          },
          required: ["id"],
        },
        outputSchema: {
          type: "object",
          properties: {
            lines: { type: "array", items: { $ref: "#/$defs/line" } },
            total: { type: ["number", "null"] },
          },
          $defs: { line: { type: "object", properties: { sku: { type: "string" } }, additionalProperties: false } },
        },
      },
      { name: "ping", description: "", inputSchema: { type: "object", additionalProperties: { type: "integer" } } },
    ]);
    expect(text).toBe(
      [
        "declare const tools: {",
        "  /** Read one order. Ends *\\/ here. */",
        '  "get-order"(input: {',
        "    /** The order's id */",
        "    id: string;",
        '    "with items"?: boolean;',
        '    status?: "open" | "paid" | null;',
        "  }): Promise<{",
        "    lines?: Array<{",
        "      sku?: string;",
        "    }>;",
        "    total?: number | null;",
        "  }>;",
        "  ping(input: Record<string, number>): Promise<unknown>;",
        "};",
      ].join("\n"),
    );
  });

  it("declares a schema too deep, or a $ref cycle, as unknown", () => {
    const node = { type: "object", properties: { next: { $ref: "#" } } };
    const text = declareTools([{ name: "walk", description: "Walk.", inputSchema: node }]);
    expect(text).toContain("next?: unknown;");
    expect(text.split("\n").length).toBeLessThan(40);
  });
});
