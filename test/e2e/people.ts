import type { Page } from "playwright-core";
import { afterEach } from "vitest";
import { type Browser, launch } from "./browser";

/**
 * A fresh browser per page, each with its own cookies (the identity provider's session too), closed
 * after each test: people signing in must not share a session.
 */
export function useFreshPages(): () => Promise<Page> {
  const browsers: Browser[] = [];
  afterEach(async () => {
    await Promise.all(browsers.splice(0).map((browser) => browser.close()));
  });
  return async () => {
    const browser = await launch();
    browsers.push(browser);
    return browser.context.newPage();
  };
}

/**
 * From the console's sign-in page through the demo identity provider (scripts/idp/demo-idp.ts): its
 * login page (any password) and its consent prompt, as `login`.
 */
export async function throughDemoIdp(page: Page, login: string): Promise<void> {
  await page.locator('main[data-view="sign-in"]').getByRole("link", { name: "Sign in with Demo IdP" }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
}

/**
 * The secret of a new runtime key (scope call) that may name its app's users by id (`actAs: "header"`),
 * made with the demo admin key; its name starts with `prefix` (names stay taken after a run).
 */
export async function actingKey(baseUrl: string, prefix: string): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/keys`, {
    method: "POST",
    headers: { authorization: "Bearer dev-admin-key", "content-type": "application/json" },
    body: JSON.stringify({ name: `${prefix}-${crypto.randomUUID().slice(0, 8)}`, scopes: ["call"], actAs: "header" }),
  });
  if (response.status !== 201) throw new Error(`POST /v1/keys answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { secret: string }).secret;
}

/** Runs one call of `tool` with `key`, for the user `user` names (Toolgate-User): the API's answer. */
export function callFor(baseUrl: string, key: string, user: string, id: string, tool: string, args: unknown) {
  return fetch(`${baseUrl}/v1/calls/openai`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "toolgate-user": user },
    body: JSON.stringify([{ id, type: "function", function: { name: tool, arguments: JSON.stringify(args) } }]),
  });
}
