import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DemoIdp, startDemoIdp } from "../../scripts/idp/demo-idp";
import { startConnectionsApi } from "../servers/connections-api";
import { type DevServer, freePort, startDevServer } from "../servers/wrangler-dev";
import { seriousViolations } from "./axe";
import { navigate, openView, viewReady } from "./browser";
import { throughDemoIdp, useFreshPages } from "./people";

// The Connections view and the Connect button, every part real: a tenant of its own under `wrangler
// dev` whose tool my_items acts as the person through connection "demo"; people sign in to the console
// with one demo provider, and connect at a second (the upstream, with refresh tokens and revocation)
// whose loopback API answers each person's own items.

let server: DevServer;
let signInIdp: DemoIdp;
let upstream: DemoIdp;
let api: Awaited<ReturnType<typeof startConnectionsApi>>;
let baseUrl: string;

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  signInIdp = await startDemoIdp({ redirectUris: [`${baseUrl}/auth/callback`] });
  upstream = await startDemoIdp({
    redirectUris: [`${baseUrl}/connections/callback`],
    refreshTokens: { accessTokenSeconds: 600 },
  });
  api = await startConnectionsApi(`${upstream.url}/me`);
  const config = {
    name: "conn-console",
    tools: ["add"],
    // People use the console signed in; the one key's secret is nobody's (a hash of nothing known).
    keys: [{ name: "nobody", hash: "0".repeat(64), scopes: ["call"] }],
    identity: {
      oidc: {
        name: "Demo IdP",
        issuer: signInIdp.url,
        clientId: signInIdp.clientId,
        clientSecret: "SIGN_IN_SECRET",
        scopes: ["openid", "email", "profile", "groups"],
      },
      roles: { admins: { groups: ["admins"], scopes: ["admin"] }, everyone: { groups: ["*"] } },
    },
    connections: {
      demo: {
        title: "Demo Cloud",
        issuer: upstream.url,
        clientId: upstream.clientId,
        clientSecret: "UPSTREAM_SECRET",
        scopes: ["openid"],
      },
    },
    http: [
      { name: "my_items", description: "Your items", url: `${api.url}/items`, connection: { name: "demo" } },
      // Detached: a call without the connection waits for it (parked), and goes on once it is made.
      {
        name: "my_items_later",
        description: "Your items, detached",
        url: `${api.url}/items`,
        connection: { name: "demo" },
        execution: "detached",
      },
    ],
    egress: { allowHttpHosts: ["127.0.0.1"] },
  };
  server = await startDevServer({
    port,
    vars: {
      TOOLGATE_CONFIG: JSON.stringify(config),
      SIGN_IN_SECRET: signInIdp.clientSecret,
      UPSTREAM_SECRET: upstream.clientSecret,
      TOOLGATE_CONNECTIONS_SECRET: "console-connections-secret-0123456789",
    },
  });
});

afterAll(async () => {
  await server?.stop();
  await Promise.all([signInIdp?.stop(), upstream?.stop(), api?.close()]);
});

const freshPage = useFreshPages();

async function signedIn(login: string): Promise<Page> {
  const page = await freshPage();
  await page.goto(`${baseUrl}/`);
  await throughDemoIdp(page, login);
  await page.locator("main[data-view]").first().waitFor();
  return page;
}

/** Runs `tool` in the Run view (opened unless on screen), until it is `status`: the record shown. */
async function runMyItems(page: Page, status: string, tool = "my_items") {
  const onRun = (await page.locator('main[data-view="run"]').count()) > 0;
  const run = onRun
    ? await viewReady(page, "run")
    : await openView(page, "run", () => page.goto(`${baseUrl}/#/run/${tool}`));
  await run
    .getByRole("form", { name: `Run ${tool}` })
    .getByRole("button", { name: `Run ${tool}` })
    .click();
  const record = run.locator(`section.record[data-status="${status}"]`);
  await record.waitFor();
  return record;
}

/** The upstream provider's login and consent, in the tab the Connect button opened. */
async function connectIn(tab: Page, login: string): Promise<void> {
  await tab.locator('input[name="login"]').fill(login);
  await tab.locator('input[name="password"]').fill("any password");
  await tab.getByRole("button", { name: "Sign-in" }).click();
  await tab.getByRole("button", { name: "Continue" }).click();
  await tab.getByText("Connected to Demo Cloud.").waitFor();
}

describe("the console's Connections view and Connect button", () => {
  it("a call needing a connection shows Connect; the view lists, counts and disconnects", async () => {
    const alice = await signedIn("alice");
    const refused = await runMyItems(alice, "denied");
    const button = refused.getByRole("link", { name: "Connect Demo Cloud" });
    expect(await button.getAttribute("href")).toBe(`${baseUrl}/connections/demo/connect`);
    const [tab] = await Promise.all([alice.waitForEvent("popup"), button.click()]);
    await connectIn(tab, "alice");
    await tab.close();

    const done = await runMyItems(alice, "succeeded");
    await done.getByText("alice's first item").first().waitFor();

    const view = await navigate(alice, "Connections", "connections");
    const card = view.locator('li[data-connection="demo"]');
    expect(await card.locator('[data-field="state"]').textContent()).toBe("Connected");
    expect(await card.locator('[data-field="count"]').textContent()).toBe("1 person");
    expect(await card.textContent()).toContain("openid");
    for (const scheme of ["light", "dark"] as const) {
      await alice.emulateMedia({ colorScheme: scheme });
      expect({ scheme, violations: await seriousViolations(alice) }).toEqual({ scheme, violations: [] });
    }

    // Bob, not an admin: his own state only, no counts.
    const bob = await signedIn("bob");
    const bobs = await navigate(bob, "Connections", "connections");
    const bobCard = bobs.locator('li[data-connection="demo"]');
    expect(await bobCard.locator('[data-field="state"]').textContent()).toBe("Not connected");
    expect(await bobCard.locator('[data-field="count"]').count()).toBe(0);
    await bobCard.getByRole("link", { name: "Connect Demo Cloud" }).waitFor();

    await card.getByRole("button", { name: "Disconnect Demo Cloud" }).click();
    await view.getByText("Disconnected Demo Cloud. Demo Cloud revoked the tokens too.").waitFor();
    await viewReady(alice, "connections");
    await card.locator('[data-field="state"]', { hasText: "Not connected" }).waitFor();
    expect(await card.locator('[data-field="count"]').textContent()).toBe("0 people");
    expect({ violations: await seriousViolations(alice) }).toEqual({ violations: [] });
    await runMyItems(alice, "denied");
  });

  it("a detached call waits for its user to connect, with Connect, and goes on once they have", async () => {
    const bob = await signedIn("bob");
    const parked = await runMyItems(bob, "awaiting_input", "my_items_later");
    const run = await viewReady(bob, "run");
    await run.getByText("Waiting for you to connect: the call goes on by itself once you have.").waitFor();
    const button = parked.getByRole("link", { name: "Connect Demo Cloud" });
    expect(await button.getAttribute("href")).toBe(`${baseUrl}/connections/demo/connect`);
    const [tab] = await Promise.all([bob.waitForEvent("popup"), button.click()]);
    await connectIn(tab, "bob");
    await tab.close();
    // The same call, followed by the Run view, ends with bob's items: nobody ran it again.
    const done = run.locator('section.record[data-status="succeeded"]');
    await done.waitFor();
    await done.getByText("bob's first item").first().waitFor();
  });
});
