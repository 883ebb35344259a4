import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectationsOf, jsonValuesIn, mismatch, parseExpectation, unmet } from "./expectation";
import { classifyShellBlocks, problemsOf, runExample } from "./shell-example";
import { eventually } from "../../wait";

/** The docs examples' checker fails where an example's output departs from what it shows. */

const shape = (text: string) => parseExpectation(text, 1).shape!;

describe("expected values", () => {
  it("matches objects by the fields shown, strings and values exactly unless they hold …", () => {
    const actual = {
      messages: [{ role: "tool", tool_call_id: "call_1", content: '{"sum":5}' }],
      calls: [{ status: "succeeded" }],
    };
    expect(
      mismatch(
        shape(
          String.raw`{"messages":[{"role":"tool","tool_call_id":"call_1","content":"{\"sum\":5}"}],` +
            '"calls":[…records…]}',
        ),
        actual,
      ),
    ).toBeUndefined();
    expect(mismatch(shape(String.raw`{"messages":[{"content":"{\"sum\":6}"}]}`), actual)).toBe(
      String.raw`$.messages[0].content: expected "{\"sum\":6}", got "{\"sum\":5}"`,
    );
    expect(mismatch(shape(`{"calls":[{"status":"running"}]}`), actual)).toBe(
      '$.calls[0].status: expected "running", got "succeeded"',
    );
    expect(mismatch(shape(`{"record":…}`), actual)).toBe(`$: no field "record" in ${JSON.stringify(actual)}`);
    expect(mismatch(shape(`{"id":"key_…","n":…}`), { id: "key_3f9a", n: [1] })).toBeUndefined();
    expect(mismatch(shape(`{"id":"key_…"}`), { id: "tg_3f9a" })).toBe('$.id: expected "key_…", got "tg_3f9a"');
  });

  it("matches arrays item for item, or in order with others between where … stands", () => {
    expect(mismatch(shape(`[1,2]`), [1, 2, 3])).toBe("$: expected 2 items, got 3 (write … for more)");
    expect(mismatch(shape(`[1,…,3]`), [1, 2, 3])).toBeUndefined();
    expect(mismatch(shape(`[3,…,1]`), [1, 2, 3])).toMatch(/no item, in order, matches/);
    expect(mismatch(shape(`[…]`), [])).toBeUndefined();
    expect(mismatch(shape(`{"a":null,"b":true,"c":-1.5e2}`), { a: null, b: true, c: -150 })).toBeUndefined();
  });

  it("reads a status, text with …, and expectations continued on indented comment lines", () => {
    expect(parseExpectation('201 {"key":…}', 1)).toMatchObject({ status: 201, shape: { kind: "object" } });
    expect(parseExpectation("409", 1)).toMatchObject({ status: 409 });
    expect(parseExpectation("Mcp-Session-Id: …", 1).pattern!.test("HTTP/1.1 200 OK\nMcp-Session-Id: abc\n")).toBe(true);
    const found = expectationsOf(
      'curl …\n# → {"gates":[{"gate":"demo:tool:sleep",\n#     "limit":1}]}\n# prose, not part of it\necho',
    );
    expect(found).toEqual([
      {
        index: 1,
        expectation: expect.objectContaining({ line: 2, text: '{"gates":[{"gate":"demo:tool:sleep","limit":1}]}' }),
      },
    ]);
    expect(() => parseExpectation('{"a":}', 7)).toThrow(/line 7: the expected value is not JSON with ellipses/);
  });

  it("finds JSON in a whole answer, answers back to back, after headers, or in SSE data lines", () => {
    expect(jsonValuesIn('{"a":1}')).toEqual([{ a: 1 }]);
    expect(jsonValuesIn('{"a":"}"}[1,[2]]')).toEqual([{ a: "}" }, [1, [2]]]);
    expect(jsonValuesIn('Error [conflict]: {"a":"\\"[x"}')).toEqual([{ a: '"[x' }]);
    expect(jsonValuesIn('HTTP/1.1 200 OK\nX: y\n\n{"a":1}\n')).toEqual([{ a: 1 }]);
    expect(jsonValuesIn('event: message\ndata: {"a":1}\n\n')).toEqual([{ a: 1 }]);
    expect(unmet(parseExpectation('200 {"a":1}', 1), '{"a":1}', [404])).toBe(
      "expected status 200, the step's last curl got 404",
    );
    expect(unmet(parseExpectation('{"a":1}', 1), "plain text", [200])).toBe("the output holds no JSON value");
  });
});

describe("running an example", () => {
  let server: Server;
  let host = "";
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(req.url === "/missing" ? 404 : 200, { "content-type": "application/json" });
      res.end(req.url === "/missing" ? '{"error":{"code":"not_found"}}' : '{"ok":true,"n":2}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    host = `127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const check = async (body: string) => problemsOf(await runExample(body, host, 20_000), expectationsOf(body).length);

  it("passes an example whose steps print what they show", async () => {
    expect(
      await check(
        'curl -s http://127.0.0.1:8787/ok\n# → 200 {"ok":true}\n' +
          'N=$(curl -s http://127.0.0.1:8787/ok | jq .n)\necho "n=$N"\n# → n=2',
      ),
    ).toEqual([]);
    expect(await check('curl -s http://127.0.0.1:8787/missing\n# → 404 {"error":{"code":"not_found"}}')).toEqual([]);
  });

  it("fails on another output, an unexpected 4xx, a failing command or an unreached expectation", async () => {
    expect(await check('curl -s http://127.0.0.1:8787/ok\n# → {"ok":false}')).toEqual([
      expect.stringContaining("$.ok: expected false, got true"),
    ]);
    expect(await check("curl -s http://127.0.0.1:8787/missing")).toEqual([expect.stringContaining("a curl got 404")]);
    expect(await check('curl -s http://127.0.0.1:8787/missing\n# → {"error":…}')).toEqual([
      expect.stringContaining("a curl got 404"),
    ]);
    expect(await check('false\ncurl -s http://127.0.0.1:8787/ok\n# → {"ok":true}')).toEqual([
      expect.stringContaining("bash exited 1"),
    ]);
  });

  it("ends what an example leaves running, and kills one that outlives its bound", async () => {
    const run = await runExample("sleep 300 &\necho $! >&2", host, 20_000);
    const pid = Number(/^(\d+)$/m.exec(run.stderr)![1]);
    expect(run.code).toBe(0);
    // The background sleep was killed with the group: gone, or dead and waiting to be reaped.
    const dead = () =>
      !existsSync(`/proc/${pid}`) || / Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\)/, ""));
    await eventually(dead, `the example's background sleep (pid ${pid}) is dead`);
    const hung = await runExample("sleep 300", host, 200);
    expect(hung.code).not.toBe(0);
    expect(hung.stderr).toContain("killed: still running after 200 ms");
  });

  it("sorts shell blocks into examples to run, no-test ones, and unmarked ones", () => {
    const block = (lang: string, flags: string[], body: string) => ({ file: "x.md", line: 1, lang, flags, body });
    const sorted = classifyShellBlocks([
      block("sh", [], "curl http://127.0.0.1:8787/healthz"),
      block("sh", ["no-test"], "npx wrangler deploy"),
      block("bash", [], "npm test"),
      block("sh", [], "npm run dev   # serves http://127.0.0.1:8787"),
      block("json", [], "{}"),
    ]);
    expect([sorted.run.length, sorted.noTest.length, sorted.unmarked.map((b) => b.body)]).toEqual([
      1,
      1,
      ["npm test", "npm run dev   # serves http://127.0.0.1:8787"],
    ]);
  });
});
