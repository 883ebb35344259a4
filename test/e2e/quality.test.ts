import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { apiCall, launch, navigate, openView, screenshot, signIn, viewReady, viewUrl, type Browser } from "./browser";

// What every view must hold: accessible names, keyboard use with visible focus, 390 px, dark mode,
// untrusted output as text, and scope-dependent views.
const baseUrl = inject("baseUrl");
// An admin lands on the Overview: it comes last, after the views the loops open from it.
const VIEWS = ["tools", "run", "batch", "history", "live", "playground", "approvals", "gates", "adapters", "overview"];
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
});

/** Controls without an accessible name (label, aria-label(ledby), or text), described for the failure message. */
function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const named = (el: Element): boolean => {
      if (el.getAttribute("aria-label")?.trim()) return true;
      const by = el.getAttribute("aria-labelledby");
      if (by?.split(/\s+/).some((id) => document.getElementById(id)?.textContent?.trim())) return true;
      if ((el as HTMLInputElement).labels && [...(el as HTMLInputElement).labels!].some((l) => l.textContent?.trim()))
        return true;
      if ((el.tagName === "BUTTON" || el.tagName === "A" || el.tagName === "SUMMARY") && el.textContent?.trim())
        return true;
      return false;
    };
    return [...document.querySelectorAll("input, select, textarea, button, a[href], summary")]
      .filter((el) => !named(el) && (el as HTMLElement).offsetParent !== null)
      .map((el) => el.outerHTML.slice(0, 120));
  });
}

describe("console quality", () => {
  it("gives every control an accessible name, in every view", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${baseUrl}/`);
    await page.getByLabel("API key").waitFor();
    expect(await unnamedControls(page)).toEqual([]);
    await signIn(page, baseUrl, "dev-admin-key", "overview");
    await apiCall(baseUrl, [{ id: `names-${Date.now()}`, name: "add", args: { a: 1, b: 1 } }]);
    for (const view of VIEWS) {
      // Each view with its first data on screen (History lists the call above).
      await openView(page, view, () => page.goto(viewUrl(baseUrl, view)));
      expect({ view, unnamed: await unnamedControls(page) }).toEqual({ view, unnamed: [] });
    }
    await page.close();
  });

  it("works by keyboard alone, with a visible focus ring", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${baseUrl}/`);
    await page.getByLabel("API key").waitFor();
    // The key field has focus on load; type, then Tab to the button and press Enter.
    await page.keyboard.type("dev-call-key");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Sign in");
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).not.toBe("none");
    await openView(page, "tools", () => page.keyboard.press("Enter"));

    // Reach "Run" in the nav by Tab and follow it with Enter.
    for (let i = 0; i < 10 && (await page.evaluate(() => document.activeElement?.textContent)) !== "Run"; i++)
      await page.keyboard.press("Tab");
    const run = await openView(page, "run", () => page.keyboard.press("Enter"));
    expect(await run.getByRole("heading", { level: 1 }).textContent()).toBe("Run a tool");
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    await page.close();
  });

  it("loads every view with no console error, and has an icon, /favicon.ico too", async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on(
      "console",
      (message) => void (message.type() === "error" && errors.push(`${page.url()}: ${message.text()}`)),
    );
    page.on("pageerror", (error) => void errors.push(`${page.url()}: ${error.message}`));
    await signIn(page, baseUrl, "dev-admin-key", "overview");
    // A new load of the console's document (the tab keeps its key), then each view with its first data
    // (the Playground's document, and the console's again after it, are new loads too).
    await page.reload();
    await viewReady(page, "overview");
    for (const view of [...VIEWS, "keys"]) await openView(page, view, () => page.goto(viewUrl(baseUrl, view)));
    // Browsers ask for /favicon.ico whatever a page links; the console's links name both icons.
    const icons = await page
      .locator('link[rel="icon"]')
      .evaluateAll((links) => links.map((link) => (link as HTMLLinkElement).href));
    expect(icons.map((href) => new URL(href).pathname).sort()).toEqual(["/favicon.ico", "/favicon.svg"]);
    for (const href of icons) {
      const response = await fetch(href);
      expect({ href, status: response.status, type: response.headers.get("content-type") }).toEqual({
        href,
        status: 200,
        type: expect.stringMatching(/^image\//),
      });
    }
    const ico = new Uint8Array(await (await fetch(`${baseUrl}/favicon.ico`)).arrayBuffer());
    expect([...ico.subarray(0, 4)]).toEqual([0, 0, 1, 0]); // an icon resource
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows only what the key's scope allows", async () => {
    const page = await browser.context.newPage();
    await signIn(page, baseUrl, "dev-call-key");
    const nav = page.getByRole("navigation", { name: "Views" });
    expect(await nav.getByRole("link").allTextContents()).toEqual([
      "Tools",
      "Run",
      "Batch",
      "History",
      "Live",
      "Playground",
      "Approvals",
    ]);
    // An admin view asked for by URL falls back to the first view (a new render of it).
    await openView(page, "tools", () => page.goto(`${baseUrl}/#/keys`));
    expect(await page.locator('main[data-view="keys"]').count()).toBe(0);
    await page.close();
  });

  it("sends the user back to sign in when the API stops accepting the key", async () => {
    const page = await browser.context.newPage();
    await signIn(page, baseUrl, "dev-call-key");
    await page.evaluate(() => sessionStorage.setItem("toolgate.key", "revoked-key"));
    const signInView = await navigate(page, "History", "sign-in", { ready: false });
    await signInView.getByText("The API no longer accepts this key. Sign in again.").waitFor();
    await signInView.getByLabel("API key", { exact: true }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem("toolgate.key"))).toBeNull();
    await page.close();
  });

  it("Live opens a new stream with a fresh token when one is refused (an expired token)", async () => {
    const page = await browser.context.newPage();
    await signIn(page, baseUrl, "dev-call-key");
    let refused = 0;
    let tokens = 0;
    page.on("request", (request) => void (request.url().endsWith("/v1/events/token") && tokens++));
    await page.route("**/v1/events?*", async (route) => {
      if (refused++ === 0)
        return route.fulfill({
          status: 401,
          contentType: "application/json",
          body: '{"error":{"code":"invalid_token","message":"expired"}}',
        });
      return route.continue();
    });
    const live = await navigate(page, "Live", "live");
    await live.getByText("Connected: new events appear at the top.").waitFor({ timeout: 15_000 });
    expect(tokens).toBe(2);
    const id = `reconnect-${Date.now()}`;
    await apiCall(baseUrl, [{ id, name: "echo", args: { text: "after reconnect" } }]);
    await live.locator('li.event[data-type="call.finished"][data-tool="echo"]').getByText(id).waitFor();
    await page.close();
  });

  it("renders tool output as text, never as HTML", async () => {
    const page = await browser.context.newPage();
    await signIn(page, baseUrl, "dev-call-key");
    const run = await openView(page, "run", () => page.goto(`${baseUrl}/#/run/echo`));
    const form = run.getByRole("form", { name: "Run echo" });
    const payload = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>bold</b>`;
    await form.getByLabel("text", { exact: true }).fill(payload);
    await form.getByRole("button", { name: "Run echo" }).click();
    const output = form.getByLabel("Output text");
    await output.waitFor();
    expect(await output.textContent()).toBe(payload);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator("main img, main b, main script").count()).toBe(0);
    await page.close();
  });

  it("fits 390 px without sideways scrolling, and follows a dark colour scheme", async () => {
    const phone = await browser.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.emulateMedia({ colorScheme: "dark" });
    await signIn(phone, baseUrl, "dev-admin-key", "overview");
    for (const view of VIEWS) {
      await openView(phone, view, () => phone.goto(viewUrl(baseUrl, view)));
      const width = await phone.evaluate(() => document.documentElement.scrollWidth);
      expect({ view, width }).toEqual({ view, width: 390 });
    }
    const background = await phone.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = background.match(/\d+/g)!.map(Number);
    expect(r! + g! + b!).toBeLessThan(150);
    const run = await openView(phone, "run", () => phone.goto(`${baseUrl}/#/run/add`));
    const form = run.getByRole("form", { name: "Run add" });
    await form.getByLabel("a", { exact: true }).fill("7");
    await form.getByLabel("b", { exact: true }).fill("5");
    await form.getByRole("button", { name: "Run add" }).click();
    await form.getByLabel("Structured output").getByText('"sum": 12').waitFor();
    await screenshot(phone, "run-390-dark");
    await phone.close();
  });
});
