import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { navigate, screenshot, signIn, viewReady } from "./browser";
import { throughDemoIdp, useFreshPages } from "./people";

// People sign in to the console with the demo identity provider (oidc-provider, started by
// global-setup.ts for the demo tenant): alice (group admins) sees the admin views, bob does not;
// signing out ends the session on the server; an API key still signs in as before.
const baseUrl = inject("baseUrl");
const freshPage = useFreshPages();

/** From the console's sign-in page through the provider's login and consent, back to the view `id`. */
async function signInAs(page: Page, login: string, hash: string, id: string) {
  await page.goto(`${baseUrl}/${hash}`);
  await throughDemoIdp(page, login);
  return viewReady(page, id);
}

const navLinks = async (page: Page) =>
  page.getByRole("navigation", { name: "Views" }).getByRole("link").allTextContents();

describe("console: people sign in with the identity provider", () => {
  it("signs alice in as an admin, back to the view she asked for, and signs her out", async () => {
    const page = await freshPage();
    await signInAs(page, "alice", "#/history", "history");
    await page.locator("header.top").getByText("demo · Alice Admin (").waitFor();
    expect(await navLinks(page)).toEqual(expect.arrayContaining(["Keys", "Connectors", "Approvals"]));
    await screenshot(page, "signed-in-alice");
    // The API answers her session: the admin Keys view loads.
    await navigate(page, "Keys", "keys");

    await page.locator("header.top").getByRole("button", { name: "Sign out" }).click();
    await page.locator('main[data-view="sign-in"]').waitFor();
    // The session ended on the server: a reload does not sign her back in.
    await page.reload();
    await page.locator('main[data-view="sign-in"]').getByRole("link", { name: "Sign in with Demo IdP" }).waitFor();
  });

  it("signs bob in without the admin views", async () => {
    const page = await freshPage();
    await signInAs(page, "bob", "", "tools");
    await page.locator("header.top").getByText("demo · Bob Builder (call)").waitFor();
    const links = await navLinks(page);
    expect(links).toContain("Connectors");
    expect(links).not.toContain("Keys");
    const connectors = await navigate(page, "Connectors", "connectors");
    // His own connectors only (other tests may have connected some for him): never everyone's.
    await connectors.getByText("MCP clients you connected. Revoking one stops it at once.").waitFor();
  });

  it("still signs in with an API key", async () => {
    const page = await freshPage();
    await signIn(page, baseUrl, "dev-admin-key");
    await page.locator("header.top").getByText("demo · dev-admin (admin)").waitFor();
  });
});
