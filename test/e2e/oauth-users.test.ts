import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { describe, expect, inject, it } from "vitest";
import { navigate, screenshot, usePage, viewReady } from "./browser";
import { TestProvider, throughCallback } from "./mcp-oauth-client";
import { throughDemoIdp } from "./people";

// A person connects an MCP client for themselves: the official SDK v2 client starts OAuth, the
// browser lands on the console's consent page, bob signs in there with the demo identity provider,
// connects the client "for you", and the client calls a tool as bob. Bob's Connectors view lists it;
// revoking it there ends the client's access and its refresh.
const baseUrl = inject("baseUrl");
const browserPage = usePage();

describe("an MCP connector signed in by the person who uses it", () => {
  it("bob connects the SDK client for himself, sees it in Connectors, and revokes it", async () => {
    const { page } = browserPage;
    const mcpUrl = new URL(`${baseUrl}/mcp`);
    const provider = new TestProvider();
    const client = new Client({ name: "toolgate-e2e-bob", version: "1.0.0" });
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);

    const callback = await throughCallback(page, async () => {
      await page.goto(provider.authorizationUrls[0]!.href);
      // Not signed in: the consent page's address survives the provider's sign-in.
      await throughDemoIdp(page, "bob");
      const consent = await viewReady(page, "consent");
      expect(await consent.locator('[data-field="asks"]').textContent()).toContain(
        "Connect SDK v2 e2e client for you (Bob Builder)",
      );
      // Only admins may grant admin: bob is offered call alone.
      expect(await consent.getByRole("radio").count()).toBe(1);
      await screenshot(page, "consent-for-you");
      await consent.getByRole("button", { name: "Approve" }).click();
    });
    await first.finishAuth(callback);

    // The client acts for bob.
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
    expect(sum.structuredContent).toEqual({ sum: 42 });
    const me = (await (
      await fetch(`${baseUrl}/v1/whoami`, { headers: { authorization: `Bearer ${provider.saved!.access_token}` } })
    ).json()) as { user?: { id: string } };
    expect(me.user?.id).toBe("bob");

    // Bob's Connectors view lists it; he revokes it there.
    await page.goto(`${baseUrl}/#/tools`);
    await viewReady(page, "tools");
    const connectors = await navigate(page, "Connectors", "connectors");
    const grant = provider.saved!.access_token.split(":")[1]!;
    const card = connectors.locator(`li[data-grant="${grant}"]`);
    await card.getByRole("heading", { name: "SDK v2 e2e client" }).waitFor();
    await screenshot(page, "connectors");
    await card.getByRole("button", { name: "Revoke the sign-in of SDK v2 e2e client" }).click();
    await card.waitFor({ state: "detached" });
    const failure = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    // The SDK met the 401, tried its refresh token and was told the grant is gone.
    expect(failure).toMatchObject({ code: "invalid_grant" });
    await client.close();
  });
});
