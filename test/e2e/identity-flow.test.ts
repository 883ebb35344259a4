import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { apiCall, navigate, screenshot, viewReady } from "./browser";
import { TestProvider, throughCallback } from "./mcp-oauth-client";
import { throughDemoIdp, useFreshPages } from "./people";

// Identity end to end, every part real: bob connects the official MCP SDK v2 client for himself
// (consent in the console, sign-in at the demo identity provider), calls a tool through it, and finds
// that call under his name in his History, without the call an app key made for nobody. Alice, an
// admin signed in through the same provider, sees both, bob's marked as his.
const baseUrl = inject("baseUrl");
const freshPage = useFreshPages();

/** History filtered to `tool`, once its answer has arrived. */
async function historyOf(page: Page, tool: string) {
  const history = await navigate(page, "History", "history");
  await history.getByLabel("Tool", { exact: true }).selectOption(tool);
  await history.locator('ol.calls[aria-busy="false"]').waitFor({ state: "attached" });
  return history;
}

describe("a person's calls, from connector to History", () => {
  it("records bob's connector call as bob: his History shows it, not others'; an admin sees both", async () => {
    // Numbers no other test adds: the calls' summaries ("Add a and b") tell them apart.
    const a = 7_000 + Math.floor(Math.random() * 1_000);
    const [ofBob, ofKey] = [`Add ${a} and 1`, `Add ${a} and 2`];

    // Bob connects the SDK client for himself and calls add through it.
    const bobPage = await freshPage();
    const mcpUrl = new URL(`${baseUrl}/mcp`);
    const provider = new TestProvider();
    const client = new Client({ name: "toolgate-e2e-flow", version: "1.0.0" });
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    const callback = await throughCallback(bobPage, async () => {
      await bobPage.goto(provider.authorizationUrls[0]!.href);
      await throughDemoIdp(bobPage, "bob");
      const consent = await viewReady(bobPage, "consent");
      await consent.getByRole("button", { name: "Approve" }).click();
    });
    await first.finishAuth(callback);
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    expect((await client.callTool({ name: "add", arguments: { a, b: 1 } })).structuredContent).toEqual({ sum: a + 1 });
    await client.close();

    // An app's key calls add for nobody in particular.
    await apiCall(baseUrl, [{ id: `flow-${a}-key`, name: "add", args: { a, b: 2 } }]);

    // Bob, signed in to the console (the provider remembers him), sees his call under his name only.
    await bobPage.goto(`${baseUrl}/#/tools`);
    await viewReady(bobPage, "tools");
    const bobs = await historyOf(bobPage, "add");
    const bobRow = bobs.locator("details.call summary").filter({ hasText: ofBob });
    await bobRow.waitFor();
    expect(await bobRow.textContent()).toContain("Bob Builder (bob)");
    expect(await bobs.locator("details.call summary").filter({ hasText: ofKey }).count()).toBe(0);
    await screenshot(bobPage, "history-of-bob");

    // Alice, an admin, sees both calls; only bob's names a user.
    const alicePage = await freshPage();
    await alicePage.goto(`${baseUrl}/#/tools`);
    await throughDemoIdp(alicePage, "alice");
    await viewReady(alicePage, "tools");
    const alices = await historyOf(alicePage, "add");
    const [bobsSeen, keysSeen] = [ofBob, ofKey].map((text) =>
      alices.locator("details.call summary").filter({ hasText: text }),
    );
    await keysSeen!.waitFor();
    expect(await bobsSeen!.textContent()).toContain("Bob Builder (bob)");
    expect(await keysSeen!.textContent()).not.toContain("Bob Builder");
  });
});
