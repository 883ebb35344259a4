import { describe, expect, it } from "vitest";
import { adapterConfig, callTools, uid, upstreams } from "../helpers/adapters";
import { json, request } from "../helpers/requests";

const api = upstreams.httpApi;

// get_weather as a tenant declares it: its secret, timeout and retries, the fields it answers and their schema.
const getWeather = {
  name: "get_weather",
  description: "Current weather for a city",
  input: {
    type: "object",
    properties: { city: { type: "string", minLength: 1 } },
    required: ["city"],
    additionalProperties: false,
  },
  url: `${api}/weather`,
  query: { q: "{city}" },
  auth: { type: "query", name: "appid", secret: "WEATHER_KEY" },
  timeoutMs: 5000,
  retry: { attempts: 3, baseMs: 1 },
  output: {
    type: "object",
    properties: { tempC: { type: "number" } },
    required: ["tempC"],
    additionalProperties: false,
  },
  response: { tempC: "/main/temp" },
};
const echoDocument = {
  openapi: "3.0.3",
  info: { title: "Echo", version: "1" },
  servers: [{ url: api }],
  paths: {
    "/echo/{id}": {
      get: {
        operationId: "getEcho",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": {
            description: "ok",
            content: {
              "application/json": {
                schema: { type: "object", required: ["path"], properties: { path: { type: "string" } } },
              },
            },
          },
        },
      },
    },
    "/weather": {
      get: {
        operationId: "getWeather",
        responses: {
          "200": {
            description: "ok",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["main"],
                  properties: {
                    main: { type: "object", required: ["temp"], properties: { temp: { type: "number" } } },
                  },
                },
              },
            },
          },
        },
        parameters: [{ name: "q", in: "query", schema: { type: "string" } }],
      },
    },
  },
};

const env = () => ({
  TOOLGATE_CONFIG: adapterConfig(`out-${uid()}`, {
    http: [getWeather],
    openapi: [{ name: "echo", document: echoDocument, prefix: "api_" }],
    secrets: { WEATHER_KEY: "OUT_WEATHER_KEY" },
  }),
  OUT_WEATHER_KEY: "weather-secret-0123",
});

describe("declared outputs through the Worker", () => {
  it("answers { tempC } from the upstream's JSON and lists the output schema to MCP clients", async () => {
    const e = env();
    const { messages, records } = await callTools(e, ["get_weather", { city: "Oslo" }], ["api_getEcho", { id: "x" }]);
    expect(records.map((r) => r.status)).toEqual(["succeeded", "succeeded"]);
    expect(messages[0]!.content).toBe('{"tempC":4.5}');
    const listed = (await json(await request("/v1/tools/mcp", { env: e }))).tools as {
      name: string;
      outputSchema?: unknown;
    }[];
    expect(listed.find((tool) => tool.name === "get_weather")?.outputSchema).toEqual(getWeather.output);
    expect(listed.find((tool) => tool.name === "api_getEcho")?.outputSchema).toMatchObject({ required: ["path"] });
  });

  it("fails a wrong upstream shape as an upstream_error naming the field, once, for HTTP and OpenAPI tools", async () => {
    const { messages, records } = await callTools(
      env(),
      ["get_weather", { city: "Mars" }],
      ["get_weather", { city: "Atlantis" }],
      ["api_getWeather", { q: "Mars" }],
    );
    expect(records.map((r) => [r.status, r.error?.code, r.attempts])).toEqual([
      ["failed", "upstream_error", 1],
      ["failed", "upstream_error", 1],
      ["failed", "upstream_error", 1],
    ]);
    expect(records[0].error.message).toMatch(/does not match the tool's output schema: tempC: .*number/);
    expect(records[1].error.message).toMatch(/lacks what the tool maps: tempC: \/main\/temp is not in the answer/);
    expect(records[2].error.message).toMatch(/does not match the tool's output schema: main\.temp: .*number/);
    expect(messages[0]!.content).toMatch(/^Error \[upstream_error\]/);
  });

  it("refuses a declaration whose mapping does not fit its output schema, naming it", async () => {
    const bad = { ...getWeather, response: { celsius: "/main/temp" } };
    const res = await request("/v1/tools/openai", {
      env: { TOOLGATE_CONFIG: adapterConfig(`bad-${uid()}`, { http: [bad], secrets: { WEATHER_KEY: "X" } }) },
    });
    expect(res.status).toBe(500);
    expect((await json(res)).error.message).toBe(
      'TOOLGATE_CONFIG is invalid: http[0]: HTTP tool "get_weather": ' +
        "invalid response.celsius: not a property of output (declared: tempC)",
    );
  });
});
