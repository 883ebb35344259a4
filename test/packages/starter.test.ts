import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { run } from "./project";

const { starter, key, url } = inject("packages");

/** The packages an install brings for runtime: its lock file's entries that are not for development only. */
function runtimePackages(dir: string): string[] {
  const lock = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== "" && !entry.dev && !entry.devOptional)
    .map(([path]) => path.replace(/^.*node_modules\//, ""))
    .sort();
}

describe("a project created by npm create toolgate, installed from the packed tarballs", () => {
  it("has the starter's files, and its README stays within 40 lines", () => {
    for (const file of ["src/index.ts", "tools/add.ts", "tenants/main.json", "wrangler.toml", ".gitignore"]) {
      expect(existsSync(join(starter, file)), file).toBe(true);
    }
    expect(readFileSync(join(starter, "README.md"), "utf8").trimEnd().split("\n").length).toBeLessThanOrEqual(40);
  });

  it("brings only the runtime dependencies toolgate and the Worker need", () => {
    expect(runtimePackages(starter)).toEqual([
      "@cfworker/json-schema",
      "@cloudflare/workers-oauth-provider",
      "@valibot/to-json-schema",
      "hono",
      "toolgate",
      "valibot",
    ]);
  });

  it("typechecks and builds for a deploy (npm run check: wrangler types, tsc, deploy --dry-run)", () => {
    const output = run("npm", ["run", "check"], starter);
    expect(output).toMatch(/--dry-run: exiting now/);
  });

  it("runs a tool over HTTP on wrangler dev", async () => {
    const response = await fetch(`${url}/v1/calls/openai`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify([{ id: "call_1", type: "function", function: { name: "add", arguments: '{"a":2,"b":3}' } }]),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { messages: { tool_call_id: string; content: string }[] };
    expect(answer.messages).toEqual([expect.objectContaining({ tool_call_id: "call_1" })]);
    expect(JSON.parse(answer.messages[0]!.content)).toEqual({ sum: 5 });
  });

  it("runs a tool over MCP with the official SDK client", async () => {
    const client = new Client({ name: "starter-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(["add", "greet"]);
      const result = await client.callTool({ name: "greet", arguments: { name: "Ada" } });
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent).toEqual({ greeting: "Hello, Ada!" });
    } finally {
      await client.close();
    }
  });

  it("refuses a wrong key", async () => {
    const response = await fetch(`${url}/v1/tools`, { headers: { authorization: "Bearer tg_wrong" } });
    expect(response.status).toBe(401);
  });
});
