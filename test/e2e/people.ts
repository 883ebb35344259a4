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
