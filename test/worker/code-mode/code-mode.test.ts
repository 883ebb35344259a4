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
async function runCode(env: Record<string, unknown>, code: string): Promise<Record_> {
  const id = `run_${++ids}_${crypto.randomUUID().slice(0, 6)}`;
  const body = {
    tool_calls: [{ id, type: "function", function: { name: "run_code", arguments: JSON.stringify({ code }) } }],
  };
  const answer = await json(await request("/v1/calls/openai", { body, env }));
  return answer.calls[0] as Record_;
}

describe("code mode", () => {
  it("runs a program whose tool calls are calls of their own, recorded with the run as parent", async () => {
    const env = codeTenant();
    const run = await runCode(
      env,
      "const one = await tools.add({ a: 1, b: 2 });\nconsole.log('one', one);\n" +
        "const two = await tools.add({ a: one.sum, b: 10 });\nreturn { total: two.sum };",
    );
    expect(run.status, JSON.stringify(run)).toBe("succeeded");
    const output = run.output?.structured as {
      result: unknown;
      logs: string[];
      calls: { callId: string; tool: string }[];
    };
    expect(output.result).toEqual({ total: 13 });
    expect(output.logs).toEqual(['one {"sum":3}']);
    expect(output.calls.map((call) => call.tool)).toEqual(["add", "add"]);
    for (const child of output.calls) {
      const entry = await json(await request(`/v1/calls/${child.callId}`, { env, key: ADMIN_KEY }));
      expect(entry.record.parent).toBe(run.callId);
      expect(entry.record.status).toBe("succeeded");
    }
  });
});
