import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = process.env.TOOLGATE_CHROMIUM ?? "/usr/bin/chromium";
export const ARTIFACTS = "test-artifacts/console";

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Debian's Chromium, headless, with a new empty profile; playwright-core drives it (no downloaded browser). */
export async function launch(viewport = { width: 1280, height: 900 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "toolgate-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function signIn(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Views" }).waitFor();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Runs calls through the API directly (what a chat app would do), with the demo call key. */
export async function apiCall(baseUrl: string, calls: { id: string; name: string; args: unknown }[]): Promise<{ calls: { status: string }[] }> {
  const body = calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } }));
  const response = await fetch(`${baseUrl}/v1/calls/openai`, {
    method: "POST",
    headers: { Authorization: "Bearer dev-call-key", "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`API answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { calls: { status: string }[] };
}
