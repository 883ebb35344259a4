import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpTool } from "../../../src/adapters/http";
import type { HttpToolDeclaration } from "../../../src/adapters/declarations";
import { createEgressFetch } from "../../../src/egress";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import type { Tool } from "../../../src/tool";
import { startHttpApi, type HttpApi } from "../../servers/http-api";

let api: HttpApi;
beforeAll(async () => {
  api = await startHttpApi();
});
afterAll(() => api.close());

const run = (tool: Tool, args: unknown) =>
  executeCall(
    { id: `c_${Math.random()}`, name: tool.name, arguments: args },
    {
      registry: createRegistry([tool]),
      fetch: createEgressFetch({ allowHosts: [], allowHttpHosts: [api.url] }),
    },
  );

const TEMP_C = {
  type: "object",
  properties: { tempC: { type: "number" } },
  required: ["tempC"],
  additionalProperties: false,
};
const weather = (over: Partial<HttpToolDeclaration> = {}): HttpToolDeclaration => ({
  name: "get_weather",
  description: "Current weather for a city",
  input: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  url: `${api.url}/weather`,
  query: { q: "{city}" },
  retry: { attempts: 3, baseMs: 1 },
  output: TEMP_C,
  response: { tempC: "/main/temp" },
  ...over,
});

describe("httpTool: declared output", () => {
  it("answers the mapped fields, checked against the output schema, and lists that schema", async () => {
    const tool = httpTool(weather());
    expect(tool.outputSchema).toEqual(TEMP_C);
    const result = await run(tool, { city: "Oslo" });
    expect(result.ok && result.output).toEqual({
      content: [{ type: "text", text: '{"tempC":4.5}' }],
      structured: { tempC: 4.5 },
    });
  });

  it("fails a wrong upstream shape as an upstream_error naming the field, without retrying", async () => {
    const before = api.hits.get("/weather") ?? 0;
    const result = await run(httpTool(weather()), { city: "Mars" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({
      code: "upstream_error",
      issues: [{ path: "tempC", message: expect.stringMatching(/number/) }],
    });
    expect(result.error.message).toMatch(
      /^127\.0\.0\.1:\d+'s answer does not match the tool's output schema: tempC: .*number/,
    );
    expect(result.record.attempts).toBe(1);
    expect(api.hits.get("/weather")).toBe(before + 1);
  });

  it("fails an answer that lacks a mapped value, naming the pointer", async () => {
    const result = await run(httpTool(weather()), { city: "Atlantis" });
    expect(!result.ok && result.error).toMatchObject({
      code: "upstream_error",
      message: expect.stringMatching(/'s answer lacks what the tool maps: tempC: \/main\/temp is not in the answer$/),
    });
  });

  it("fails an answer that is not JSON, or too large to read whole", async () => {
    const text = await run(httpTool(weather({ url: `${api.url}/text`, query: {} })), { city: "Oslo" });
    expect(!text.ok && text.error.message).toMatch(
      /'s answer is not JSON \(text\/plain; charset=utf-8, HTTP 200\); the tool declares a JSON output$/,
    );
    const big = await run(httpTool(weather({ maxResponseBytes: 10 })), { city: "Oslo" });
    expect(!big.ok && big.error.message).toMatch(
      /'s answer is larger than maxResponseBytes \(10 bytes\), so its JSON cannot be read/,
    );
  });

  it('maps without a schema (the whole answer with "") and checks a schema without a mapping', async () => {
    const mapped = await run(httpTool(weather({ output: undefined, response: { city: "/name", all: "" } })), {
      city: "Oslo",
    });
    expect(mapped.ok && mapped.output.structured).toEqual({
      city: "Oslo",
      all: { name: "Oslo", main: { temp: 4.5, humidity: 80 }, wind: { speed: 3.1 } },
    });
    const whole = { type: "object", properties: { main: { type: "object", required: ["temp"] } }, required: ["main"] };
    const checked = await run(httpTool(weather({ output: whole, response: undefined })), { city: "Oslo" });
    expect(checked.ok && checked.output.structured).toMatchObject({ name: "Oslo" });
    const failed = await run(httpTool(weather({ output: whole, response: undefined })), { city: "Atlantis" });
    expect(!failed.ok && failed.error.message).toMatch(
      /does not match the tool's output schema: main\.temp: .*required property "temp"/,
    );
  });

  it.each([
    [
      { response: { tempC: "main/temp" } },
      /HTTP tool "get_weather": invalid response\.tempC: must be a JSON Pointer into the answer/,
    ],
    [{ response: {} }, /invalid response: must map at least one field/],
    [
      { response: { celsius: "/main/temp" } },
      /invalid response\.celsius: not a property of output \(declared: tempC\)/,
    ],
    [
      { response: { other: "/name" }, output: { type: "object", required: ["tempC"] } },
      /invalid output: it requires "tempC", which response does not map/,
    ],
    [
      { output: { type: "string", pattern: "(" } },
      /invalid output: Invalid JSON Schema: #\/pattern is not a valid regular expression/,
    ],
  ])("refuses the declaration %o naming the field", (over, message) => {
    expect(() => httpTool(weather(over as Partial<HttpToolDeclaration>))).toThrow(message);
  });
});
