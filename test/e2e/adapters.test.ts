import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMcpServer, type McpTestServer } from "../servers/mcp-server";
import { startDevServer, type DevServer } from "../servers/wrangler-dev";
import { navigate, screenshot, signIn, usePage, viewReady } from "./browser";

// The Adapters view against a real MCP server (the SDK's, on 127.0.0.1) declared by a tenant of its
// own, served by its own `wrangler dev`.
const ADMIN_HASH = "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9"; // dev-admin-key
const CALL_HASH = "06311ac15f2412fb7144a9977924f7a6a137403f1201f5bd0588cc02cd08e33f"; // dev-call-key
const browser = usePage();
let mcp: McpTestServer;
let dev: DevServer;

beforeAll(async () => {
  mcp = await startMcpServer();
  const config = {
    name: "adapters-e2e",
    tools: ["add"],
    keys: [
      { name: "admin", hash: ADMIN_HASH, scopes: ["admin"] },
      { name: "app", hash: CALL_HASH, scopes: ["call"] },
    ],
    egress: { allowHttpHosts: ["127.0.0.1"] },
    mcp: [{ name: "t", url: mcp.url, prefix: "t_", tools: ["echo", "bump"] }],
  };
  dev = await startDevServer({ vars: { TOOLGATE_CONFIG: JSON.stringify(config), TOOLGATE_DEMO: "false" } });
});

afterAll(async () => {
  await dev?.stop();
  await mcp?.close();
});

async function call(name: string, args: unknown): Promise<{ status: string; error?: { code: string } }> {
  const res = await fetch(`${dev.url}/v1/calls/openai`, {
    method: "POST",
    headers: { authorization: "Bearer dev-call-key", "content-type": "application/json" },
    body: JSON.stringify([
      { id: `a-${crypto.randomUUID()}`, type: "function", function: { name, arguments: JSON.stringify(args) } },
    ]),
  });
  return ((await res.json()) as { calls: { status: string; error?: { code: string } }[] }).calls[0]!;
}

describe("Adapters view", () => {
  it("shows a server's state and tools, diffs a changed definition, and approves and denies it", async () => {
    const { page } = browser;
    await signIn(page, dev.url, "dev-admin-key");
    let view = await navigate(page, "Adapters", "adapters");
    const server = view.getByRole("region", { name: "MCP server t" });
    expect(await server.locator('[data-field="state"]').textContent()).toBe("reachable");
    expect(await server.locator('[data-field="listed"]').textContent()).not.toBe("never");
    expect(await server.locator('[data-field="error"]').textContent()).toBe("none");
    const echo = server.locator('li[data-tool="t_echo"]');
    expect(await echo.getAttribute("data-state")).toBe("unapproved");

    await echo.getByRole("button", { name: "Approve t_echo" }).click();
    await view.getByText("Approved the definition of t_echo.").waitFor();
    await server.locator('li[data-tool="t_echo"][data-state="approved"]').waitFor();

    // The server changes echo's description: the view shows what changed since the approval.
    expect((await call("t_bump", {})).status).toBe("succeeded");
    view = await navigate(page, "Gates", "gates").then(() => navigate(page, "Adapters", "adapters"));
    const changed = view.locator('li[data-tool="t_echo"][data-state="changed"]');
    await changed.getByText("calls refused", { exact: true }).waitFor();
    const diff = changed.getByRole("region", { name: "Changes to t_echo" });
    expect(await diff.locator(".diff-removed").allTextContents()).toEqual([
      '-   "description": "Echo the text back",\n',
    ]);
    expect(await diff.locator(".diff-added").allTextContents()).toEqual([
      '+   "description": "Echo the text back (bumped)",\n',
    ]);
    await screenshot(page, "adapters");

    await changed.getByRole("button", { name: "Deny t_echo" }).click();
    await view.getByText("Denied the definition of t_echo.").waitFor();
    await view.locator('li[data-tool="t_echo"][data-state="denied"]').waitFor();
    expect(await call("t_echo", { text: "hi" })).toMatchObject({ error: { code: "tool_definition_changed" } });

    await view.locator('li[data-tool="t_echo"]').getByRole("button", { name: "Approve t_echo" }).click();
    await view.locator('li[data-tool="t_echo"][data-state="approved"]').waitFor();
    expect((await call("t_echo", { text: "hi" })).status).toBe("succeeded");
  });

  it("shows a remote server's hostile tool description as text, in Tools and in the diff", async () => {
    const { page } = browser;
    const hostile = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`;
    mcp.changeEchoDescription(hostile);
    const view = await navigate(page, "Tools", "tools").then(() => navigate(page, "Adapters", "adapters"));
    const diff = view.locator('li[data-tool="t_echo"]').getByRole("region", { name: "Changes to t_echo" });
    await diff.locator(".diff-added").getByText(hostile.replace(/"/g, '\\"'), { exact: false }).waitFor();
    // A new page load: the catalogue (with the new description) is fetched once per load.
    await page.reload();
    const tools = await viewReady(page, "adapters").then(() => navigate(page, "Tools", "tools"));
    await tools.locator('li[data-tool="t_echo"]').getByText(hostile, { exact: true }).waitFor();
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('main img[src="x"], main script').count()).toBe(0);
  });
});
