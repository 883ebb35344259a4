import * as v from "valibot";
import { expect, it } from "vitest";
import { defineTool } from "../../../src/tool";
import { SOURCE_HASH } from "../../../worker/source-hash.generated";
import { createCatalog } from "../../../worker/tenant/catalog";
import { readyToolSchemas, renderToolSchemas } from "../../../worker/tenant/tool-schemas";
import { toJsonSchemaLibraryLoaded } from "../../../worker/to-json-schema-library";

/**
 * The build's code tools take the JSON Schemas it precomputed; any other code tool makes readyToolSchemas
 * load valibot's converter (a module apart in the Worker wrangler builds: test/core/dev-server/tool-schemas.test.ts).
 */

const tool = (name: string) =>
  defineTool({
    name,
    description: `The ${name} tool`,
    input: v.object({ text: v.pipe(v.string(), v.maxLength(10)) }),
    output: v.object({ length: v.number() }),
    run: ({ text }) => ({ length: text.length }),
  });

// Not what the converter makes of `tool`'s schemas: a tool answering these was given them.
const PRECOMPUTED = {
  input: { type: "object", description: "precomputed input" },
  output: { type: "object", description: "precomputed output" },
};
const tableOf = (names: string[], sourceHash = SOURCE_HASH) => {
  const text = renderToolSchemas(Object.fromEntries(names.map((name) => [name, PRECOMPUTED])), sourceHash);
  return JSON.parse(/= (\{.*\});\n$/s.exec(text)![1]!);
};

it("gives the build's own tools the schemas it precomputed, for the sources it was built from", async () => {
  const [built, other, stale] = [tool("built"), tool("other"), tool("stale")];
  const catalog = createCatalog([built, other, stale]);
  // `other` is named in the table but is not the build's tool of that name (a test's, an app's).
  await readyToolSchemas(catalog, false, tableOf(["built", "other"]), createCatalog([built, tool("other"), stale]));
  expect(built.inputSchema).toEqual(PRECOMPUTED.input);
  expect(built.outputSchema).toEqual(PRECOMPUTED.output);
  // The others are converted: the converter was loaded for them.
  expect(toJsonSchemaLibraryLoaded()).toBe(true);
  expect(other.inputSchema).toMatchObject({ properties: { text: { type: "string", maxLength: 10 } } });
  expect(stale.inputSchema).toMatchObject({ properties: { text: { type: "string", maxLength: 10 } } });
});

it("ignores a table written by a build of other sources", async () => {
  const stale = tool("stale");
  const catalog = createCatalog([stale]);
  await readyToolSchemas(catalog, false, tableOf(["stale"], "0".repeat(64)), catalog);
  expect(stale.inputSchema).toMatchObject({ properties: { text: { maxLength: 10 } } });
  expect(stale.hash).toMatch(/^[0-9a-f]{64}$/);
});
