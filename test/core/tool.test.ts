import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineTool } from "../../src/tool";
import { createRegistry } from "../../src/registry";
import { add, echo } from "./fixtures";

describe("defineTool", () => {
  it("returns a frozen plain object with JSON Schema derived from valibot", () => {
    expect(Object.isFrozen(add)).toBe(true);
    expect(Object.isFrozen(add.policy)).toBe(true);
    expect(add.inputSchema).toEqual({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    expect(add.outputSchema).toMatchObject({ type: "object", properties: { sum: { type: "number" } } });
    expect(echo.outputSchema).toBeUndefined();
  });

  it.each(["", "has space", "x".repeat(65), "dots.not.allowed", "ünïcode"])("refuses the name %j", (name) => {
    expect(() => defineTool({ name, description: "", input: v.object({}), run: () => "" })).toThrow(
      /Invalid tool name/,
    );
  });

  it("accepts names the chat APIs share", () => {
    for (const name of ["a", "get_weather", "Tool-2", "x".repeat(64)]) {
      expect(defineTool({ name, description: "", input: v.object({}), run: () => "" }).name).toBe(name);
    }
  });

  it.each([
    [{ timeoutMs: -1 }, "policy.timeoutMs"],
    [{ retry: { attempts: 0 } }, "policy.retry.attempts"],
    [{ concurrency: { limit: 0 } }, "policy.concurrency.limit"],
    [{ risk: "extreme" }, "policy.risk"],
    [{ approval: "sometimes" }, "policy.approval"],
    [{ concurrency: { limit: 1, group: "bad group!" } }, "policy.concurrency.group"],
    [{ unknownField: true }, "policy"],
  ])("refuses a malformed policy %j, naming the tool and field", (policy, field) => {
    expect(() =>
      defineTool({ name: "t", description: "", input: v.object({}), policy: policy as never, run: () => "" }),
    ).toThrow(new RegExp(`Tool "t": invalid ${field.replace(/\./g, "\\.")}`));
  });

  it("names the tool when a schema has no JSON Schema form", () => {
    const dated = defineTool({ name: "dated", description: "", input: v.object({ when: v.date() }), run: () => "" });
    expect(() => dated.inputSchema).toThrow(/Tool "dated": its schema cannot be expressed as JSON Schema/);
  });

  it("hashes the public definition stably", () => {
    const again = defineTool({
      name: "add",
      description: "Add two numbers",
      input: v.object({ a: v.number(), b: v.number() }),
      output: v.object({ sum: v.number() }),
      policy: { readOnly: true },
      run: () => ({ sum: 0 }),
    });
    expect(again.hash).toBe(add.hash);
    const changed = defineTool({
      name: "add",
      description: "Adds",
      input: v.object({ a: v.number(), b: v.number() }),
      run: () => ({ sum: 0 }),
    });
    expect(changed.hash).not.toBe(add.hash);
  });
});

describe("defineTool: tags and needs", () => {
  const define = (extra: Record<string, unknown>) =>
    defineTool({ name: "weather", description: "", input: v.object({}), run: () => "", ...extra });

  it("keeps them frozen on the tool, outside its hash", () => {
    const tool = define({
      tags: ["demo", "net"],
      needs: { secrets: ["WEATHER_KEY"], egress: ["https://api.weather.example", "*.cdn.example"] },
    });
    expect(tool.tags).toEqual(["demo", "net"]);
    expect(tool.needs).toEqual({ secrets: ["WEATHER_KEY"], egress: ["https://api.weather.example", "*.cdn.example"] });
    expect(Object.isFrozen(tool.tags) && Object.isFrozen(tool.needs) && Object.isFrozen(tool.needs?.secrets)).toBe(
      true,
    );
    expect(tool.hash).toBe(define({}).hash);
    expect(define({}).tags).toBeUndefined();
  });

  it.each([
    [{ tags: ["Demo"] }, /Tool "weather": invalid tags\[0\]: "Demo" must match/],
    [{ tags: ["a", "a"] }, /invalid tags\[1\]: "a" is listed twice/],
    [{ tags: "demo" }, /invalid tags: must be a list of at most 64 strings/],
    [{ needs: { secrets: ["WEATHER-KEY"] } }, /invalid needs\.secrets\[0\]: "WEATHER-KEY" must be a secret's name/],
    [
      { needs: { egress: ["api.example.com:8443"] } },
      /invalid needs\.egress\[0\]: "api\.example\.com:8443" names a port: write the origin with its scheme/,
    ],
    [{ needs: { egress: ["https://api.example.com/v1"] } }, /invalid needs\.egress\[0\]: .*is not an origin/],
    [{ needs: { hosts: [] } }, /invalid needs\.hosts: only "secrets" and "egress" are known/],
  ])("refuses %o naming the tool and the field", (extra, message) => {
    expect(() => define(extra)).toThrow(message);
  });
});

describe("createRegistry", () => {
  it("looks tools up by name and refuses duplicates", () => {
    const registry = createRegistry([add, echo]);
    expect(registry.get("add")).toBe(add);
    expect(registry.get("__proto__")).toBeUndefined();
    expect(registry.list().map((t) => t.name)).toEqual(["add", "echo"]);
    expect(() => createRegistry([add, add])).toThrow(/Duplicate tool name "add"/);
    expect(registry.filter((t) => t.name === "echo").list()).toEqual([echo]);
    expect(() => registry.with([add])).toThrow(/Duplicate/);
  });
});
