import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { checkKeyPointer, gateName } from "../../../src/gates/key";
import { isJsonPointer, pointerMissesSchema, resolvePointer } from "../../../src/json-pointer";
import { defineTool } from "../../../src/tool";

describe("gate names", () => {
  const args = { repo: "acme/web", "a/b": { "c~d": 7 }, list: ["x", { id: 2 }], n: 3, deep: { b: 1, a: [true] } };

  it("a tool's own gate, a group's, and a key from a function or a pointer", () => {
    expect(gateName("t", "deploy", { limit: 1 }, args)).toBe("t:tool:deploy");
    expect(gateName("t", "deploy", { limit: 1, group: "ci" }, args)).toBe("t:group:ci");
    expect(gateName("t", "deploy", { limit: 1, group: "ci", key: (a: any) => a.repo }, args)).toBe(
      "t:group:ci:key:acme/web",
    );
    expect(gateName("t", "deploy", { limit: 1, key: "/repo" }, args)).toBe("t:tool:deploy:key:acme/web");
  });

  it("a pointer follows RFC 6901 (escapes, array indexes); other values are canonical JSON; nothing there is the empty key", () => {
    expect(gateName("t", "x", { limit: 1, key: "/a~1b/c~0d" }, args)).toBe("t:tool:x:key:7");
    expect(gateName("t", "x", { limit: 1, key: "/list/1/id" }, args)).toBe("t:tool:x:key:2");
    expect(gateName("t", "x", { limit: 1, key: "/deep" }, args)).toBe('t:tool:x:key:{"a":[true],"b":1}');
    expect(gateName("t", "x", { limit: 1, key: "/missing" }, args)).toBe("t:tool:x:key:");
    expect(gateName("t", "x", { limit: 1, key: "/list/01" }, args)).toBe("t:tool:x:key:");
    expect(gateName("t", "x", { limit: 1, key: "/n/deeper" }, args)).toBe("t:tool:x:key:");
  });

  it("a long key is replaced by its hash, so gate names stay short", () => {
    const name = gateName("t", "x", { limit: 1, key: "/repo" }, { repo: "r".repeat(129) });
    expect(name).toMatch(/^t:tool:x:key:sha256:[0-9a-f]{64}$/);
    expect(gateName("t", "x", { limit: 1, key: "/repo" }, { repo: "r".repeat(128) })).toBe(
      `t:tool:x:key:${"r".repeat(128)}`,
    );
  });
});

describe("gate keys naming the user", () => {
  const bob = { id: "bob", name: "Bob" };
  const args = { repo: "acme/web" };

  it('"@user" is one gate per user; a call for nobody takes the empty key', () => {
    expect(gateName("t", "x", { limit: 1, key: "@user" }, args, bob)).toBe("t:tool:x:key:user:bob");
    expect(gateName("t", "x", { limit: 1, key: "@user" }, args, { id: "alice" })).toBe("t:tool:x:key:user:alice");
    expect(gateName("t", "x", { limit: 1, key: "@user" }, args)).toBe("t:tool:x:key:");
  });

  it("an array joins its parts with colons, pointers and the user alike", () => {
    expect(gateName("t", "x", { limit: 1, key: ["@user", "/repo"] }, args, bob)).toBe("t:tool:x:key:user:bob:acme/web");
    expect(gateName("t", "x", { limit: 1, key: ["/repo", "@user"] }, args)).toBe("t:tool:x:key:acme/web:");
  });

  it("a function key gets the user beside the arguments", () => {
    const key = (a: { repo: string }, call: { user?: { id: string } }) => `${call.user?.id ?? "none"}@${a.repo}`;
    expect(gateName("t", "x", { limit: 1, key: key as never }, args, bob)).toBe("t:tool:x:key:bob@acme/web");
    expect(gateName("t", "x", { limit: 1, key: key as never }, args)).toBe("t:tool:x:key:none@acme/web");
  });

  it("checks each pointer of an array against the schema, and lets @user pass", () => {
    const tool = (key: string | string[]) =>
      defineTool({
        name: "deploy",
        description: "",
        input: v.object({ repo: v.string() }),
        policy: { concurrency: { limit: 1, key } },
        run: () => "",
      });
    expect(() => checkKeyPointer(tool(["@user", "/repo"]))).not.toThrow();
    expect(() => checkKeyPointer(tool("@user"))).not.toThrow();
    expect(() => checkKeyPointer(tool(["@user", "/branch"]))).toThrow(/invalid policy.concurrency.key "\/branch"/);
  });

  it("refuses keys that are neither the user nor a pointer, and arrays of more than 4 parts", () => {
    const tool = (key: unknown) => () =>
      defineTool({
        name: "deploy",
        description: "",
        input: v.object({ repo: v.string() }),
        policy: { concurrency: { limit: 1, key: key as string } },
        run: () => "",
      });
    expect(tool("user")).toThrow(/"@user"/);
    expect(tool(["@user", "repo"])).toThrow(/"@user"/);
    expect(tool(["/repo", "/repo", "/repo", "/repo", "@user"])).toThrow(/1 to 4/);
    expect(tool([])).toThrow(/1 to 4/);
  });
});

describe("JSON Pointers", () => {
  it("accepts only non-empty pointers with valid escapes, at most 256 characters", () => {
    for (const ok of ["/a", "/a/0", "/~0~1", "/", "/a b"]) expect(isJsonPointer(ok), ok).toBe(true);
    for (const bad of ["", "a", "/~2", "/a~", "#/a", `/${"a".repeat(256)}`])
      expect(isJsonPointer(bad), bad).toBe(false);
    expect(resolvePointer({ "": 1 }, "/")).toBe(1);
  });

  it("tells why a pointer cannot name an argument of a schema", () => {
    const schema = {
      type: "object",
      properties: {
        owner: { type: "object", properties: { login: { type: "string" } } },
        tags: { type: "array", items: { type: "string" } },
        free: {},
      },
    };
    expect(pointerMissesSchema(schema, "/owner/login")).toBeUndefined();
    expect(pointerMissesSchema(schema, "/tags/0")).toBeUndefined();
    expect(pointerMissesSchema(schema, "/free/anything")).toBeUndefined(); // the schema does not say
    expect(pointerMissesSchema(schema, "/own")).toBe(
      'the arguments declare no property "own" (declared: owner, tags, free)',
    );
    expect(pointerMissesSchema(schema, "/owner/name")).toBe('"/owner" declares no property "name" (declared: login)');
    expect(pointerMissesSchema(schema, "/tags/first")).toBe('"/tags" is an array: "first" is not an index');
  });

  it("a code tool's pointer key is checked against its schema on request", () => {
    const tool = (key: string) =>
      defineTool({
        name: "t",
        description: "",
        input: v.object({ repo: v.string() }),
        policy: { concurrency: { limit: 1, key } },
        run: () => "ok",
      });
    expect(() => checkKeyPointer(tool("/repo"))).not.toThrow();
    expect(() => checkKeyPointer(tool("/rep"))).toThrow(
      'Tool "t": invalid policy.concurrency.key "/rep": the arguments declare no property "rep" (declared: repo)',
    );
    expect(() => tool("rep")).toThrow(/invalid policy\.concurrency\.key/);
  });
});
