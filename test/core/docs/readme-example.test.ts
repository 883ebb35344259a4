// The example of docs/core.md, "The core without the Worker", kept compiling and working (with a stand-in weather API).
import * as v from "valibot";
import { expect, it } from "vitest";
import { createRegistry, defineTool, executeBatch } from "../../../src";
import { FORMATS } from "../../../src/formats";

it("the core example of docs/core.md runs as written", async () => {
  const messages: unknown[] = [];
  const weatherApi: typeof fetch = async (input) =>
    Response.json({ temp: new URL(String(input)).searchParams.get("q") === "Oslo" ? 4 : 20 });
  const getWeather = defineTool({
    name: "get_weather",
    description: "Current weather for a city",
    input: v.object({ city: v.pipe(v.string(), v.minLength(1)) }),
    output: v.object({ tempC: v.number() }),
    policy: { timeoutMs: 5_000, retry: { attempts: 3 }, readOnly: true, concurrency: { limit: 2 } },
    async run({ city }, ctx) {
      const res = await ctx.fetch(`https://weather.example/v1?q=${encodeURIComponent(city)}`, { signal: ctx.signal });
      return { tempC: ((await res.json()) as { temp: number }).temp };
    },
  });
  const registry = createRegistry([getWeather]);
  const tools = registry.list().map((tool) => FORMATS.openai.toolDefinition(tool));
  expect(tools[0]).toMatchObject({ type: "function", function: { name: "get_weather", strict: true } });

  const assistantMessage = {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
      { id: "call_2", type: "function", function: { name: "get_weather", arguments: '{"city":""}' } },
    ],
  };
  const decoded = FORMATS.openai.decode(assistantMessage);
  if (decoded.ok) {
    const results = await executeBatch(decoded.calls, {
      registry,
      secrets: { WEATHER_KEY: "k-123456" },
      fetch: weatherApi,
    });
    messages.push(...FORMATS.openai.encode(results).messages);
  }
  expect(messages).toEqual([
    { role: "tool", tool_call_id: "call_1", content: '{"tempC":4}' },
    { role: "tool", tool_call_id: "call_2", content: expect.stringContaining("invalid_arguments") },
  ]);
});
