import { afterAll, beforeAll, expect, it } from "vitest";
import { sha256Hex } from "../../../src/sha256";
import { DEMO_KEYS } from "../../../worker/demo/tenant";
import { startDevServer, type DevServer } from "../../servers/wrangler-dev";

/**
 * The Worker as wrangler builds it leaves the JSON Schema validator out of its bundle (wrangler.toml
 * [alias], worker/json-schema-library.ts) and loads it for a tenant that declares tools: a declared
 * HTTP tool's arguments are checked against its JSON Schema (a $ref, resolved when the tool is built)
 * through real `wrangler dev`, the build the vitest workers project does not make.
 */

let server: DevServer;
beforeAll(async () => {
  const config = {
    name: "declared-schemas",
    tools: ["add"],
    keys: [{ name: "app", hash: sha256Hex(DEMO_KEYS.call), scopes: ["call"] }],
    egress: { allowHttpHosts: ["127.0.0.1"] },
    http: [
      {
        name: "item",
        description: "An item by id",
        input: {
          type: "object",
          $defs: { id: { type: "string", minLength: 3 } },
          properties: { id: { $ref: "#/$defs/id" } },
          required: ["id"],
        },
        url: "http://127.0.0.1:9/items/{id}",
        readOnly: true,
      },
    ],
  };
  server = await startDevServer({ vars: { TOOLGATE_CONFIG: JSON.stringify(config), TOOLGATE_DEMO: "false" } });
}, 120_000);
afterAll(() => server?.stop());

it("checks a declared tool's arguments against its JSON Schema in the Worker wrangler builds", async () => {
  const res = await fetch(`${server.url}/v1/calls/openai`, {
    method: "POST",
    headers: { authorization: `Bearer ${DEMO_KEYS.call}`, "content-type": "application/json" },
    body: JSON.stringify([
      { id: "c-short", type: "function", function: { name: "item", arguments: JSON.stringify({ id: "ab" }) } },
    ]),
  });
  expect(res.status).toBe(200);
  const { calls } = (await res.json()) as { calls: { status: string; error?: { code: string; message: string } }[] };
  expect(calls[0]?.error?.code).toBe("invalid_arguments");
  expect(calls[0]?.error?.message).toMatch(/id/);
}, 60_000);
