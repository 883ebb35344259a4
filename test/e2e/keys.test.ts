import { describe, expect, inject, it } from "vitest";
import { navigate, screenshot, signIn, usePage } from "./browser";

// The Keys view in Chromium against `wrangler dev`: a key created in the console works at once, its
// secret is shown once, rotation hands out a new one, revocation ends both.
const baseUrl = inject("baseUrl");
const browserPage = usePage();

const toolsWith = async (key: string) =>
  (await fetch(`${baseUrl}/v1/tools`, { headers: { authorization: `Bearer ${key}` } })).status;

describe("console: keys without a redeploy", () => {
  it("creates, rotates and revokes a key", async () => {
    const { page } = browserPage;
    await signIn(page, baseUrl, "dev-admin-key");
    let view = await navigate(page, "Keys", "keys");
    await view.locator('li[data-key="dev-call"]').getByText("from the configuration", { exact: false }).waitFor();

    const form = view.getByRole("form", { name: "Create a key" });
    await form.getByLabel("Name", { exact: true }).fill("e2e-chat");
    await form.getByLabel("Only these tools", { exact: true }).fill("add");
    await form.getByLabel("Calls per minute", { exact: true }).fill("100");
    await form.getByRole("button", { name: "Create key" }).click();
    const secret = (await view.getByLabel("Secret of e2e-chat").textContent())!;
    expect(secret).toMatch(/^tg_/);
    const card = view.locator('li[data-key="e2e-chat"]');
    await card.getByText("tools: add · 100 calls/min").waitFor();
    await screenshot(page, "keys");
    expect(await toolsWith(secret)).toBe(200);
    const tools = (await (
      await fetch(`${baseUrl}/v1/tools`, { headers: { authorization: `Bearer ${secret}` } })
    ).json()) as { tools: { name: string }[] };
    expect(tools.tools.map((tool) => tool.name)).toEqual(["add"]);

    // Shown once: a fresh load of the view lists the key without any secret.
    await page.reload();
    view = await navigate(page, "Tools", "tools").then(() => navigate(page, "Keys", "keys"));
    await view.locator('li[data-key="e2e-chat"]').waitFor();
    expect(await view.textContent()).not.toContain(secret);

    await view.getByRole("button", { name: "Rotate e2e-chat" }).click();
    const rotatedLabel = view.getByLabel("Secret of e2e-chat");
    await rotatedLabel.waitFor();
    const rotated = (await rotatedLabel.textContent())!;
    expect(rotated).not.toBe(secret);
    expect(await toolsWith(rotated)).toBe(200);
    expect(await toolsWith(secret)).toBe(200); // the old secret's grace period (an hour by default)
    await view.locator('li[data-key="e2e-chat"]').getByText("Old secret valid until").waitFor();

    await view.getByRole("button", { name: "Revoke e2e-chat" }).click();
    await view.locator('li[data-key="e2e-chat"]').getByRole("heading", { name: "e2e-chat (revoked)" }).waitFor();
    expect(await toolsWith(rotated)).toBe(401);
    expect(await toolsWith(secret)).toBe(401);
  });
});

describe("console: keys that act for their app's users", () => {
  const appPage = usePage();

  it("creates a key that acts for its app's users", async () => {
    const { page } = appPage;
    await signIn(page, baseUrl, "dev-admin-key");
    const view = await navigate(page, "Keys", "keys");
    const form = view.getByRole("form", { name: "Create a key" });
    await form.getByLabel("Name", { exact: true }).fill("e2e-app");
    await form.getByLabel("Acts for users", { exact: true }).selectOption("header");
    await form.getByRole("button", { name: "Create key" }).click();
    const secret = (await view.getByLabel("Secret of e2e-app").textContent())!;
    await view.locator('li[data-key="e2e-app"] [data-field="act-as"]').getByText("by id or signed token").waitFor();
    const whoami = (headers: Record<string, string>) =>
      fetch(`${baseUrl}/v1/whoami`, { headers: { authorization: `Bearer ${secret}`, ...headers } });
    const bob = (await (await whoami({ "toolgate-user": "bob" })).json()) as { user?: { id: string } };
    expect(bob.user?.id).toBe("bob");
    // The form is back to "no" after a create: the next key acts for no one.
    await form.getByLabel("Name", { exact: true }).fill("e2e-plain");
    await form.getByRole("button", { name: "Create key" }).click();
    const plain = (await view.getByLabel("Secret of e2e-plain").textContent())!;
    const refused = await fetch(`${baseUrl}/v1/whoami`, {
      headers: { authorization: `Bearer ${plain}`, "toolgate-user": "bob" },
    });
    expect(refused.status).toBe(403);
    // The list reloads after the secret shows: wait for the new key's card before looking for what it lacks.
    const plainCard = view.locator('li[data-key="e2e-plain"]');
    await plainCard.waitFor();
    expect(await plainCard.locator('[data-field="act-as"]').count()).toBe(0);
  });
});
