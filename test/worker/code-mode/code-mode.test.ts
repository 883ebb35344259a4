import { describe, expect, it } from "vitest";
import { ADMIN_KEY, CALL_KEY_HASH, json, request } from "../helpers/requests";

let tenants = 0;
/** A tenant with code mode over add, echo and fail; each test its own (records apart). */
function codeTenant(overrides: Record<string, unknown> = {}) {
  const config = {
    name: `code-${++tenants}-${crypto.randomUUID().slice(0, 8)}`,
    tools: ["add", "echo", "fail"],
    keys: [
      { name: "k", hash: CALL_KEY_HASH, scopes: ["call"] },
      { name: "admin", hash: "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9", scopes: ["admin"] },
    ],
    codeMode: {},
    ...overrides,
  };
  return { TOOLGATE_CONFIG: JSON.stringify(config) };
}

interface Record_ {
  callId: string;
  tool: string;
  status: string;
  parent?: string;
  output?: { structured?: unknown };
  error?: { code: string; message: string };
}

let ids = 0;
/** One code run through POST /v1/calls/openai: the run's record. */
async function runCode(env: Record<string, unknown>, code: string, key?: string): Promise<Record_> {
  const id = `run_${++ids}_${crypto.randomUUID().slice(0, 6)}`;
  const body = {
    tool_calls: [{ id, type: "function", function: { name: "run_code", arguments: JSON.stringify({ code }) } }],
  };
  const answer = await json(await request("/v1/calls/openai", { body, env, ...(key ? { key } : {}) }));
  return answer.calls[0] as Record_;
}

/** A succeeded run's output (the program's result, log and calls). */
function outputOf<T>(run: Record_): T {
  expect(run.status, JSON.stringify(run)).toBe("succeeded");
  return run.output!.structured as T;
}

describe("code mode", () => {
  it("runs a program whose tool calls are calls of their own, recorded with the run as parent", async () => {
    const env = codeTenant();
    const run = await runCode(
      env,
      "const one = await tools.add({ a: 1, b: 2 });\nconsole.log('one', one);\n" +
        "const two = await tools.add({ a: one.sum, b: 10 });\nreturn { total: two.sum };",
    );
    const output = outputOf<{ result: unknown; logs: string[]; calls: { callId: string; tool: string }[] }>(run);
    expect(output.result).toEqual({ total: 13 });
    expect(output.logs).toEqual(['one {"sum":3}']);
    expect(output.calls.map((call) => call.tool)).toEqual(["add", "add"]);
    for (const child of output.calls) {
      const entry = await json(await request(`/v1/calls/${child.callId}`, { env, key: ADMIN_KEY }));
      expect(entry.record.parent).toBe(run.callId);
      expect(entry.record.status).toBe("succeeded");
    }
  });

  it("hands a failed tool call to the program as an Error with its code and call id", async () => {
    const run = await runCode(
      codeTenant(),
      "try { await tools.fail({ message: 'no' }); } catch (e) { return { name: e.name, code: e.code, id: e.callId }; }",
    );
    const output = outputOf<{ result: { name: string; code: string; id: string } }>(run);
    expect(output.result).toEqual({ name: "ToolCallError", code: "tool_error", id: `${run.callId}.1` });
  });

  it("declares the tools in TypeScript in the code tool's description", async () => {
    const listing = await json(await request("/v1/tools/openai", { env: codeTenant() }));
    const tool = listing.tools.find((each: { function: { name: string } }) => each.function.name === "run_code");
    const description: string = tool.function.description;
    expect(description).toContain("declare const tools: {");
    expect(description).toContain(
      "/** Add two numbers. */\n  add(input: {\n    /** The first number */\n    a: number;",
    );
    expect(description).toContain("}): Promise<{\n    sum: number;\n  }>;");
    expect(description).not.toContain("run_code(");
  });
});

describe("code mode: errors are results", () => {
  const failure = async (code: string, overrides: Record<string, unknown> = {}, key?: string) => {
    const run = await runCode(key ? (overrides as Record<string, string>) : codeTenant(overrides), code, key);
    expect(run.status, JSON.stringify(run)).not.toBe("succeeded");
    return run.error!;
  };

  it("a syntax error, naming its line", async () => {
    const error = await failure("const a = 1;\nconst b = ;\nreturn b;");
    expect(error.code).toBe("invalid_arguments");
    expect(error.message).toMatch(/^The program did not start \(line 2\): SyntaxError/);
  });

  it("a thrown error, naming its line", async () => {
    const error = await failure("const a = 1;\n\nthrow new TypeError('bad ' + a);");
    expect(error.message).toMatch(/^TypeError \(line 3\): bad 1/);
  });

  it("fetch: the sandbox has no network", async () => {
    const error = await failure("await fetch('https://example.com/');");
    expect(error.message).toMatch(/\(line 1\): .*not permitted to access the internet/);
  });

  it("eval and new Function: no code from strings", async () => {
    expect((await failure("return eval('1 + 1');")).message).toMatch(/Code generation from strings disallowed/);
    expect((await failure("return new Function('return 1')();")).message).toMatch(/Code generation/);
  });

  it("bindings: the sandbox's env is empty, the host out of reach", async () => {
    const run = await runCode(
      codeTenant(),
      "const { env } = await import('cloudflare:workers');\n" +
        "return { env: Object.keys(env), globals: ['LOADER', 'LEDGER', 'host'].filter((n) => n in globalThis) };",
    );
    expect(outputOf<{ result: unknown }>(run).result).toEqual({ env: [], globals: [] });
  });

  it("a tool the caller may not use (allow-list, deny list) is not in the API", async () => {
    const env = codeTenant();
    const body = { name: "listed", scopes: ["call"], tools: ["run_code", "add"] };
    const created = await request("/v1/keys", { key: ADMIN_KEY, env, body });
    expect(created.status).toBe(201);
    const { secret } = await json(created);
    const error = await failure(
      "await tools.add({ a: 1, b: 1 });\nreturn await tools.echo({ text: 'x' });",
      env,
      secret,
    );
    expect(error.message).toMatch(/TypeError \(line 2\): .*not a function/);
    const denied = await failure("return await tools.fail({ message: 'x' });", { deny: ["fail"] });
    expect(denied.message).toMatch(/TypeError \(line 1\)/);
  });

  it("unbounded recursion", async () => {
    const error = await failure("const down = (n) => down(n + 1);\nreturn down(0);");
    expect(error.message).toMatch(/^RangeError \(line 1\): Maximum call stack size exceeded/);
  });

  it("an endless loop ends with its line, where the runtime's CPU limit would end it unnamed", async () => {
    // Local workerd enforces no CPU limit: without the step guard this test would never end.
    const small = { codeMode: { cpuMs: 50 } };
    const loop = await failure("let n = 0;\nwhile (true) n++;", small);
    expect(loop.code).toBe("tool_error");
    expect(loop.message).toMatch(
      /^RangeError \(line 2\): The program ran more than 1000000 loop turns and function calls\./,
    );
    for (const [code, line] of [
      ["do {} while (1);", 1],
      ["let i = 0;\nfor (;;) i++;", 2],
      ["for (const x of (function* () { while (true) yield 1; })()) {}", 1],
    ] as const) {
      expect((await failure(code, small)).message).toMatch(
        new RegExp(`^RangeError \\(line ${line}\\): The program ran more`),
      );
    }
    // Catching it does not let the program go on: every step after the budget throws.
    const caught = await failure("for (;;) {\n  try { for (;;) {} } catch {}\n}", small);
    expect(caught.message).toMatch(/^RangeError \(line 1\): The program ran more/);
    // Nor does an endless chain of calls with no loop in it.
    const chain = await failure(
      "const spin = async () => { await null; return spin(); };\nreturn await spin();",
      small,
    );
    expect(chain.message).toMatch(/^RangeError \(line 1\): The program ran more/);
  });

  it("the step guard changes no program's meaning", async () => {
    const code = [
      "const pairs = [[1, 2], [3, 4]];",
      "const make = (a, b) => ({ a, b });",
      "class Sum { constructor() { this.total = 0; } add(x) { this.total += x; return this; } }",
      "const sum = new Sum();",
      "outer: for (const [a, b] of pairs) {",
      "  for (let i = 0; i < 3; i++) { if (i === 1) continue outer; sum.add(a + b); }",
      "}",
      "let n = 0; do n++; while (n < 5)",
      "function* count(k) { for (let i = 0; i < k; i++) yield i; }",
      "const listed = [...count(3)].map((x) => x * 2);",
      "const handlers = {};",
      "for (const k of ['x', 'y']) handlers[k] = () => k.toUpperCase()",
      "let h = 0; while (h < 1) h = ((f) => f(1))((x) => x)",
      "const { sum: added } = await tools.add({ a: 2, b: 3 });",
      "return { total: sum.total, n, listed, made: make(1, 2), added, upper: handlers.y(), h };",
    ].join("\n");
    const run = await runCode(codeTenant(), code);
    expect(outputOf<{ result: unknown }>(run).result).toEqual({
      total: 10,
      n: 5,
      listed: [0, 2, 4],
      made: { a: 1, b: 2 },
      added: 5,
      upper: "Y",
      h: 1,
    });
  });

  it("a huge result, and a huge log cut to its bound", async () => {
    const error = await failure("return 'x'.repeat(200_000);", { codeMode: { maxResultChars: 1_000 } });
    expect(error.message).toMatch(/^ResultError: the result is 200002 characters of JSON; at most 1000/);
    const run = await runCode(
      codeTenant({ codeMode: { maxLogChars: 100 } }),
      "for (let i = 0; i < 10_000; i++) console.log('line ' + i);\nreturn 1;",
    );
    const logs = outputOf<{ logs: string[] }>(run).logs;
    expect(logs.join("").length).toBeLessThan(150);
    expect(logs.at(-1)).toBe("(log cut at 100 characters)");
  });

  it("a program waiting on nothing: the runtime sees it hang and the run ends", async () => {
    const error = await failure("await tools.add({ a: 1, b: 1 });\nawait new Promise(() => {});");
    expect(error.message).toMatch(/^The program never finished: it waits on nothing that can happen\./);
  });

  it("the wall time ends the run, listing the calls made", async () => {
    const error = await failure("await tools.add({ a: 1, b: 1 });\nawait new Promise((r) => setTimeout(r, 60_000));", {
      codeMode: { timeoutMs: 300 },
    });
    expect(error.code).toBe("timeout");
    expect(error.message).toMatch(/^The program ran longer than 300 ms\.\nCalls: add \S+\.1 succeeded/);
  });

  it("the number of tool calls", async () => {
    const error = await failure("for (let i = 0; i < 5; i++) await tools.add({ a: i, b: 1 });", {
      codeMode: { maxCalls: 2 },
    });
    expect(error.message).toMatch(/^The program made more than 2 tool calls\./);
  });

  it("a tool call that needs approval holds the run (running), naming the call (approval.test.ts)", async () => {
    const error = await failure("return await tools.add({ a: 1, b: 1 });", { requireApprovalFor: { tools: ["add"] } });
    expect(error.code).toBe("running");
    expect(error.message).toMatch(/^The run (\S+) waits for the approval of its call \1\.1 \("add"\), then runs on/);
  });
});

describe("code mode: hostile programs are contained", () => {
  it("prototype pollution of the API object and of Object stays in the run's own isolate", async () => {
    const env = codeTenant();
    const run = await runCode(
      env,
      "Object.prototype.polluted = true;\n" +
        "try { tools.add = async () => ({ sum: -1 }); } catch {}\n" +
        "try { tools.__proto__.echo = 1; } catch {}\n" +
        "const sum = await tools.add({ a: 2, b: 2 });\n" +
        "JSON.stringify = () => 'x'.repeat(10_000_000);\n" +
        "return sum;",
    );
    // The API object is frozen; the sandbox's own JSON is the program's to break, the host checks again.
    expect(run.error?.message ?? "").toMatch(/ResultError|not JSON|over/);
    const next = await runCode(
      env,
      "return { polluted: ({}).polluted ?? null, sum: (await tools.add({ a: 2, b: 2 })).sum };",
    );
    expect(outputOf<{ result: unknown }>(next).result).toEqual({ polluted: null, sum: 4 });
  });

  it("escape attempts: the host object, the module system, a second default export", async () => {
    const run = await runCode(
      codeTenant(),
      "const seen = [];\n" +
        "try { seen.push(typeof host); } catch (e) { seen.push('no host'); }\n" +
        "try { await import('main.js'); seen.push('main'); } catch (e) { seen.push('no main'); }\n" +
        "try { seen.push(Object.keys(process.env)); } catch { seen.push('no process'); }\n" +
        "return seen;",
    );
    expect(outputOf<{ result: unknown }>(run).result).toEqual(["undefined", "main", []]);
    const error = await (async () => (await runCode(codeTenant(), "}\nexport default 1;\n{")).error!)();
    expect(error.code).toBe("invalid_arguments");
  });
});
