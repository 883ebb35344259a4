import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { describe, expect, inject, it } from "vitest";
import { screenshot, usePage, viewReady } from "./browser";
import { CALLBACK, TestProvider, throughCallback } from "./mcp-oauth-client";

// The official MCP SDK v2 client signs in to toolgate with OAuth against `wrangler dev`: discovery,
// dynamic registration, authorization with PKCE — the consent page driven in Chromium by an admin —,
// the token, a tool call, a refresh, and revocation. The redirect URI is on loopback, as a desktop
// client's is; the browser's visit to it is answered by the test (nothing listens there).
const baseUrl = inject("baseUrl");
const browserPage = usePage();

/** The browser's part: the authorization URL → the console's consent page → an admin approves → the callback. */
async function approveInBrowser(authorizationUrl: URL): Promise<URLSearchParams> {
  const { page } = browserPage;
  return throughCallback(page, async () => {
    await page.goto(authorizationUrl.href);
    // Not signed in yet: the console asks for a key, and keeps the consent page's address.
    const signIn = page.locator('main[data-view="sign-in"]');
    await signIn.getByLabel("API key", { exact: true }).fill("dev-admin-key");
    await signIn.getByRole("button", { name: "Sign in" }).click();
    const consent = await viewReady(page, "consent");
    expect(await consent.locator('[data-field="client"]').textContent()).toBe("SDK v2 e2e client");
    expect(await consent.locator('[data-field="redirect"]').textContent()).toContain(CALLBACK);
    expect(await consent.locator('[data-field="scope"]').textContent()).toBe("call");
    expect(await consent.locator('[data-field="server"]').textContent()).toBe(
      `every tool of the MCP server ${baseUrl}/mcp`,
    );
    await screenshot(page, "consent");
    await consent.getByRole("button", { name: "Approve" }).click();
  });
}

describe("sign-in for MCP clients (OAuth 2.1) with the SDK v2 client", () => {
  it("serves the console, where the consent page lives, never inside another site's frame", async () => {
    const page = await fetch(`${baseUrl}/`);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("discovers, registers, is approved in the console, calls a tool, refreshes, and is refused once revoked", async () => {
    const mcpUrl = new URL(`${baseUrl}/mcp`);
    const provider = new TestProvider();
    const client = new Client({ name: "toolgate-e2e", version: "1.0.0" });

    // 1. The first connection is refused with a challenge; the SDK discovers and registers the client.
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toEqual(expect.any(String));
    const authorizationUrl = provider.authorizationUrls[0]!;
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("resource")).toBe(`${baseUrl}/mcp`);

    // 2. An admin approves in the console; the code comes back to the client, which redeems it with its verifier.
    const callback = await approveInBrowser(authorizationUrl);
    expect(callback.get("iss")).toBe(baseUrl);
    await first.finishAuth(callback);
    const tokens = provider.saved!;
    expect(tokens).toMatchObject({
      token_type: expect.stringMatching(/^bearer$/i),
      scope: "call",
      refresh_token: expect.any(String),
    });

    // 3. Connected: a tool call runs, recorded under the client and its grant.
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const listed = await client.listTools();
    expect(listed.tools.map((tool) => tool.name)).toContain("add");
    const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
    expect(sum.structuredContent).toEqual({ sum: 42 });
    const records = (await (
      await fetch(`${baseUrl}/v1/calls?tool=add&limit=5`, { headers: { authorization: "Bearer dev-admin-key" } })
    ).json()) as {
      calls: { key: string }[];
    };
    const grant = tokens.access_token.split(":")[1];
    expect(records.calls[0]!.key).toBe(`oauth:${provider.client!.client_id}#${grant}`);

    // 4. An access token the server no longer takes (here: one it never issued): the SDK refreshes and goes on.
    provider.saved = {
      ...tokens,
      access_token: `${tokens.access_token.split(":").slice(0, 2).join(":")}:not-the-secret`,
    };
    const again = await client.callTool({ name: "add", arguments: { a: 1, b: 1 } });
    expect(again.structuredContent).toEqual({ sum: 2 });
    expect(provider.saved!.access_token).not.toBe(tokens.access_token);
    expect(provider.saved!.refresh_token).not.toBe(tokens.refresh_token);

    // 5. Revocation (RFC 7009) of the refresh token ends the grant: the access token answers 401, and the
    // SDK's refresh is refused.
    const metadata = (await (await fetch(`${baseUrl}/.well-known/oauth-authorization-server`)).json()) as {
      revocation_endpoint: string;
    };
    const revoke = (token: string) =>
      fetch(metadata.revocation_endpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, client_id: provider.client!.client_id }),
      });
    expect((await revoke(provider.saved!.refresh_token!)).status).toBe(200);
    expect((await revoke(provider.saved!.access_token)).status).toBe(200);
    const refused = await fetch(`${baseUrl}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${provider.saved!.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const failure = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    // The SDK met the 401, tried its refresh token and was told the grant is gone.
    expect(failure).toMatchObject({ code: "invalid_grant", message: "Grant not found" });
    await client.close();
  });

  it("denied in the console: the client learns access_denied", async () => {
    const { page } = browserPage;
    const provider = new TestProvider();
    const client = new Client({ name: "toolgate-e2e-denied", version: "1.0.0" });
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { authProvider: provider })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    let callback: string | undefined;
    await page.route(
      (url) => url.href.startsWith(CALLBACK),
      (route) => ((callback = route.request().url()), route.fulfill({ status: 200, body: "denied" })),
    );
    try {
      await page.goto(provider.authorizationUrls[0]!.href);
      // Still signed in from the first test (the key is kept for the tab).
      const consent = await viewReady(page, "consent");
      await consent.getByRole("button", { name: "Deny" }).click();
      await page.waitForURL((url) => url.href.startsWith(CALLBACK));
    } finally {
      await page.unrouteAll({ behavior: "wait" });
    }
    expect(new URL(callback!).searchParams.get("error")).toBe("access_denied");
  });
});
