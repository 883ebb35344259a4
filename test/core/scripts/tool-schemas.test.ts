import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { expect, it } from "vitest";
import { TOOL_SCHEMAS_MODULE } from "../../../scripts/tools-catalog.mjs";
import { CATALOG } from "../../../worker/tenant/catalog";

// The build (wrangler's [build] command) precomputes the code tools' JSON Schemas for the Worker
// (worker/tenant/tool-schemas.ts), which then leaves valibot's converter out of its bundle.
it("writes every code tool's JSON Schemas, as the core derives them, keyed by the build's sources", () => {
  const node = existsSync("node_modules/node/bin/node") ? resolve("node_modules/node/bin/node") : process.execPath;
  const built = spawnSync(node, ["scripts/build.mjs"], { encoding: "utf8" });
  expect(built.status, built.stderr).toBe(0);
  const text = readFileSync(TOOL_SCHEMAS_MODULE, "utf8");
  const table = JSON.parse(/= (\{.*\});\n$/s.exec(text)![1]!) as { sourceHash: string; json: string };
  // The hash the same build wrote for the Worker (worker/source-hash.generated.ts).
  expect(readFileSync("worker/source-hash.generated.ts", "utf8")).toContain(JSON.stringify(table.sourceHash));
  const expected = Object.fromEntries(
    [...CATALOG].map(([name, tool]) => [
      name,
      tool.outputSchema ? { input: tool.inputSchema, output: tool.outputSchema } : { input: tool.inputSchema },
    ]),
  );
  expect(JSON.parse(table.json)).toEqual(expected);
  expect(Object.keys(expected)).toContain("add");
}, 120_000);
