import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";

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
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  await addLag(context, Number(process.env.TOOLGATE_E2E_LAG_MS ?? 0));
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A stress mode (TOOLGATE_E2E_LAG_MS=n): the console handles each view change, and receives each API
 * answer, up to n ms late, at random. Steps that act before the page got there fail under it.
 */
async function addLag(context: BrowserContext, lagMs: number): Promise<void> {
  if (!(lagMs > 0)) return;
  await context.addInitScript((lag) => {
    const listen = window.addEventListener.bind(window);
    window.addEventListener = ((type: string, listener: EventListener, options?: AddEventListenerOptions) =>
      listen(
        type,
        type === "hashchange" ? (event) => setTimeout(() => listener(event), Math.random() * lag) : listener,
        options,
      )) as typeof window.addEventListener;
  }, lagMs);
  await context.route(
    (url) => url.pathname.startsWith("/v1/"),
    async (route) => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * lagMs));
      await route.fallback();
    },
  );
}

/** Signs in on a fresh page load; resolves with the first view (Tools) once it has shown its data. */
export async function signIn(page: Page, baseUrl: string, key: string, view = "tools"): Promise<Locator> {
  await page.goto(`${baseUrl}/`);
  const signInView = page.locator('main[data-view="sign-in"]');
  await signInView.getByLabel("API key", { exact: true }).fill(key);
  await signInView.getByRole("button", { name: "Sign in" }).click();
  // Admins land on the Overview, other keys on Tools: then `view` is opened unless it is the landing.
  const landed = page.locator('main[data-view]:not([data-view="sign-in"])');
  await landed.waitFor();
  if ((await landed.getAttribute("data-view")) === view) return viewReady(page, view);
  await viewReady(page, (await landed.getAttribute("data-view"))!);
  return openView(page, view, () => page.goto(viewUrl(baseUrl, view)));
}

/**
 * The console's view `id` once it is on screen and has shown its first data (the shell sets
 * `data-view` on its main element and clears `aria-busy` when the view's first load settled).
 * Locators scoped to it never reach a control of the view it replaced.
 */
export async function viewReady(page: Page, id: string): Promise<Locator> {
  await page.locator(`main[data-view="${id}"][aria-busy="false"]`).waitFor({ state: "attached" });
  return page.locator(`main[data-view="${id}"]`);
}

/** Where a view is: the console's hash routes, and the Playground's own document. */
export function viewUrl(baseUrl: string, view: string): string {
  return view === "playground" ? `${baseUrl}/playground` : `${baseUrl}/#/${view}`;
}

/**
 * Does what leaves the current view (a click on a link, a goto of a hash or of the other document)
 * and waits until that view's main element is gone: replaced by the shell, or with its whole document
 * (the console and the Playground are two documents). A view already on screen under the same id
 * never counts. `ready: false` returns once the new view is on screen, before its first data.
 */
export async function openView(
  page: Page,
  id: string,
  go: () => Promise<unknown>,
  { ready = true } = {},
): Promise<Locator> {
  // Kept in the page's window, not as a handle: a handle dies with its document, the wait must not.
  const left = await page.evaluate(
    () => ((window as unknown as { __leftMain?: Element | null }).__leftMain = document.querySelector("main")) !== null,
  );
  await go();
  if (left)
    await page.waitForFunction(() => !(window as unknown as { __leftMain?: Element | null }).__leftMain?.isConnected);
  if (ready) return viewReady(page, id);
  const view = page.locator(`main[data-view="${id}"]`);
  await view.waitFor({ state: "attached" });
  return view;
}

/** Follows the nav link named `label` to the view `id` (see openView). */
export function navigate(page: Page, label: string, id: string, options?: { ready?: boolean }): Promise<Locator> {
  return openView(
    page,
    id,
    () => page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: label, exact: true }).click(),
    options,
  );
}

/**
 * Holds the page's first request matching `url` until `release()` is called: an answer that comes
 * late, on cue. Release in a finally, then `page.unrouteAll({ behavior: "wait" })`.
 */
export async function holdFirstRequest(page: Page, url: (url: URL) => boolean): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(
    url,
    async (route) => {
      await held;
      await route.continue();
    },
    { times: 1 },
  );
  return release;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Runs calls through the API directly (what a chat app would do), with the demo call key. */
export async function apiCall(
  baseUrl: string,
  calls: { id: string; name: string; args: unknown }[],
): Promise<{ calls: { status: string }[] }> {
  const body = calls.map((c) => ({
    id: c.id,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.args) },
  }));
  const response = await fetch(`${baseUrl}/v1/calls/openai`, {
    method: "POST",
    headers: { Authorization: "Bearer dev-call-key", "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`API answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { calls: { status: string }[] };
}

/** Asks the API to cancel a call (POST /v1/calls/:id/cancel) with the demo call key that made it. */
export async function apiCancel(baseUrl: string, id: string): Promise<void> {
  const response = await fetch(`${baseUrl}/v1/calls/${encodeURIComponent(id)}/cancel`, {
    method: "POST",
    headers: { Authorization: "Bearer dev-call-key" },
  });
  if (!response.ok) throw new Error(`Cancel answered ${response.status}: ${await response.text()}`);
}

/** A browser and a page for one test file: launched before its tests, closed after them. */
export function usePage(): { readonly page: Page } {
  let browser: Browser | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    browser = await launch();
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    get page() {
      if (!page) throw new Error("usePage(): the page exists once beforeAll has run");
      return page;
    },
  };
}
