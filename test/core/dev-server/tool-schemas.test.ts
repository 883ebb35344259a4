import { afterAll, beforeAll, expect, it } from "vitest";
import { sha256Hex } from "../../../src/sha256";
import { CATALOG } from "../../../worker/tenant/catalog";
import { DEMO_KEYS } from "../../../worker/demo/tenant";
import { startDevServer, type DevServer } from "../../servers/wrangler-dev";

/**
 * The Worker as wrangler builds it leaves valibot's JSON Schema converter out of its bundle (wrangler.toml
 * [alias], worker/to-json-schema-library.ts): the build precomputes the code tools' JSON Schemas, and a
 * tenant with a code tool the build did not see (the search tool) loads the converter first. Through real
 * `wrangler dev`: the vitest workers project bundles through Vite, which takes no [alias].
 */

let demo: DevServer;
let searching: DevServer;
beforeAll(async () => {
  const config = {
    name: "searching",
    tools: ["add", "echo"],
    keys: [{ name: "app", hash: sha256Hex(DEMO_KEYS.call), scopes: ["call"] }],
    search: { pinned: ["echo"] },
  };
  [demo, searching] = await Promise.all([
    startDevServer(),
    startDevServer({ vars: { TOOLGATE_CONFIG: JSON.stringify(config), TOOLGATE_DEMO: "false" } }),
  ]);
}, 120_000);
afterAll(async () => {
  await demo?.stop();
  await searching?.stop();
});

const headers = { authorization: `Bearer ${DEMO_KEYS.call}`, "content-type": "application/json" };

it("lists and calls the demo's code tools with the JSON Schemas the core derives", async () => {
  const listed = await fetch(`${demo.url}/v1/tools/openai`, { headers });
  expect(listed.status).toBe(200);
  const { tools } = (await listed.json()) as { tools: { function: { name: string; parameters: unknown } }[] };
  const add = tools.find((tool) => tool.function.name === "add");
  expect(add?.function.parameters).toMatchObject(CATALOG.get("add")!.inputSchema);
  const called = await fetch(`${demo.url}/v1/calls/openai`, {
    method: "POST",
    headers,
    body: JSON.stringify([{ id: "c1", type: "function", function: { name: "add", arguments: '{"a":2,"b":3}' } }]),
  });
  const { messages } = (await called.json()) as { messages: { content: string }[] };
  expect(JSON.parse(messages[0]!.content)).toEqual({ sum: 5 });
}, 60_000);

it("converts the search tool's schema in a tenant in search mode", async () => {
  const listed = await fetch(`${searching.url}/v1/tools/openai`, { headers });
  expect(listed.status).toBe(200);
  const { tools } = (await listed.json()) as { tools: { function: { name: string; parameters: unknown } }[] };
  expect(tools.map((tool) => tool.function.name).sort()).toEqual(["echo", "search_tools"]);
  const search = tools.find((tool) => tool.function.name === "search_tools");
  expect(search?.function.parameters).toMatchObject({ properties: { query: { type: "string" } } });
}, 60_000);
