import { PatternRouter } from "hono/router/pattern-router";
import { describe, expect, it } from "vitest";
import { Hono, LazyPatternRouter } from "../../worker/hono-lazy";

const ROUTES: [method: string, path: string][] = [
  ["ALL", "*"],
  ["GET", "/v1/tools"],
  ["GET", "/v1/tools/:format"],
  ["POST", "/v1/calls/:format?"],
  ["GET", "/v1/calls/:id{[a-z0-9-]+}"],
  ["ALL", "/mcp/*"],
];
const REQUESTS: [method: string, path: string][] = [
  ["GET", "/v1/tools"],
  ["GET", "/v1/tools/openai"],
  ["POST", "/v1/calls"],
  ["POST", "/v1/calls/mcp"],
  ["GET", "/v1/calls/abc-1"],
  ["GET", "/v1/calls/ABC"],
  ["DELETE", "/mcp/x/y"],
  ["GET", "/nothing"],
];

describe("the lazy pattern router", () => {
  it("matches as hono/tiny's PatternRouter does", () => {
    const lazy = new LazyPatternRouter<string>();
    const eager = new PatternRouter<string>();
    ROUTES.forEach(([method, path], i) => {
      lazy.add(method, path, `h${i}`);
      eager.add(method, path, `h${i}`);
    });
    for (const [method, path] of REQUESTS) expect(lazy.match(method, path)).toEqual(eager.match(method, path));
    // A route added after the first match is matched too.
    lazy.add("GET", "/later", "late");
    expect(lazy.match("GET", "/later")[0].map(([handler]) => handler)).toEqual(["h0", "late"]);
  });

  it("tests the patterns once per method and path, and again after a route is added", () => {
    const lazy = new LazyPatternRouter<string>();
    for (const [i, [method, path]] of ROUTES.entries()) lazy.add(method, path, `h${i}`);
    let scans = 0;
    const scan = PatternRouter.prototype.match;
    PatternRouter.prototype.match = function (this: PatternRouter<string>, method: string, path: string) {
      scans++;
      return scan.call(this, method, path);
    } as typeof scan;
    try {
      const first = lazy.match("POST", "/v1/calls/openai");
      expect(lazy.match("POST", "/v1/calls/openai")).toBe(first);
      expect(scans).toBe(1);
      // Another method on the same path is another match.
      expect(lazy.match("GET", "/v1/calls/openai")[0].map(([handler]) => handler)).toEqual(["h0", "h4"]);
      expect(scans).toBe(2);
      lazy.add("POST", "/v1/calls/openai", "late");
      expect(lazy.match("POST", "/v1/calls/openai")[0].map(([handler]) => handler)).toEqual(["h0", "h3", "late"]);
      expect(scans).toBe(3);
      // A path too long to keep is matched each time, with the same result.
      const long = `/mcp/${"x".repeat(300)}`;
      expect(lazy.match("GET", long)).toEqual(lazy.match("GET", long));
      expect(scans).toBe(5);
    } finally {
      PatternRouter.prototype.match = scan;
    }
  });

  it("compiles no pattern before the first match (a pattern it cannot compile fails only then)", () => {
    const lazy = new LazyPatternRouter<string>();
    expect(() => new PatternRouter<string>().add("GET", "/:id{(}", "bad")).toThrow();
    expect(() => lazy.add("GET", "/:id{(}", "bad")).not.toThrow();
    expect(() => lazy.match("GET", "/x")).toThrow();
  });

  it("serves an app whose routes come from sub-apps", async () => {
    const sub = new Hono().get("/:name", (c) => c.text(`hi ${c.req.param("name")}`));
    const app = new Hono().route("/greet", sub);
    expect(await (await app.request("/greet/ann")).text()).toBe("hi ann");
    expect((await app.request("/other")).status).toBe(404);
  });
});
