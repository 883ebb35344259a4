import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createRegistry, type ToolEntry } from "../../src/registry";
import { defineTool, type Tool } from "../../src/tool";

const tool = (name: string): Tool =>
  defineTool({ name, description: name, input: v.object({}), run: () => name }) as Tool;

/** An entry that counts its builds. */
function entry(name: string, make: () => Tool = () => tool(name)): ToolEntry & { builds: number } {
  const counted = { name, builds: 0, build: () => (counted.builds++, make()) };
  return counted;
}

describe("a registry of entries built on first use", () => {
  it("builds an entry when it is first asked for by name, once, and none other", () => {
    const [a, b] = [entry("a"), entry("b")];
    const registry = createRegistry([tool("code"), a, b]);
    expect(registry.size).toBe(3);
    expect(registry.has("b")).toBe(true);
    expect(registry.names()).toEqual(["code", "a", "b"]);
    expect([a.builds, b.builds]).toEqual([0, 0]);
    const got = registry.get("b")!;
    expect(got.name).toBe("b");
    expect(registry.get("b")).toBe(got);
    expect([a.builds, b.builds]).toEqual([0, 1]);
    expect(registry.get("missing")).toBeUndefined();
  });

  it("builds every entry for a listing, in order, and keeps what it built", () => {
    const a = entry("a");
    const registry = createRegistry([a, tool("code"), entry("b")]);
    const first = registry.get("a");
    expect(registry.list().map((t) => t.name)).toEqual(["a", "code", "b"]);
    expect(registry.list()[0]).toBe(first);
    expect(a.builds).toBe(1);
  });

  it("throws a failed build's error on every use, without building again", () => {
    const bad = entry("bad", () => {
      throw new TypeError("bad declaration");
    });
    const registry = createRegistry([tool("ok"), bad]);
    expect(registry.get("ok")?.name).toBe("ok");
    expect(() => registry.get("bad")).toThrow("bad declaration");
    expect(() => registry.list()).toThrow("bad declaration");
    expect(bad.builds).toBe(1);
  });

  it("refuses an entry that builds a tool of another name", () => {
    const registry = createRegistry([entry("a", () => tool("b"))]);
    expect(() => registry.get("a")).toThrow('The entry "a" built a tool named "b"');
  });

  it("shares built entries with the registries made from it, and keeps names unique", () => {
    const a = entry("a");
    const base = createRegistry([a]);
    const more = base.with([tool("extra")]);
    expect(more.get("a")).toBe(base.get("a"));
    expect(a.builds).toBe(1);
    expect(more.names()).toEqual(["a", "extra"]);
    expect(() => base.with([entry("a")])).toThrow('Duplicate tool name "a"');
    expect(more.filter((t) => t.name === "extra").names()).toEqual(["extra"]);
  });
});
