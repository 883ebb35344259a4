import { describe, expect, inject, it } from "vitest";
import { apiCall, openView, screenshot, usePage, viewReady, viewUrl } from "./browser";

// The Overview: an admin's first view, its charts and tables from GET /v1/metrics, updated live.
const baseUrl = inject("baseUrl");
const browser = usePage();

describe("Overview", () => {
  it("opens for an admin, and counts calls as they end without a reload", async () => {
    const { page } = browser;
    await page.goto(`${baseUrl}/`);
    const signInView = page.locator('main[data-view="sign-in"]');
    await signInView.getByLabel("API key", { exact: true }).fill("dev-admin-key");
    await signInView.getByRole("button", { name: "Sign in" }).click();
    // The console opens on it: no navigation after signing in.
    const overview = await viewReady(page, "overview");
    expect(await page.getByRole("link", { name: "Overview" }).getAttribute("aria-current")).toBe("page");

    const calls = overview.locator('dd[data-field="calls"]');
    const before = Number(await calls.textContent());
    const tag = `ov-${Date.now()}`;
    await apiCall(baseUrl, [
      { id: `${tag}-1`, name: "add", args: { a: 1, b: 2 } },
      { id: `${tag}-2`, name: "add", args: { a: 3, b: 4 } },
      { id: `${tag}-3`, name: "fail", args: { message: "on purpose" } },
    ]);
    // The event stream tells the view; it reads the metrics again.
    await expect
      .poll(async () => Number(await calls.textContent()), { timeout: 15_000 })
      .toBeGreaterThanOrEqual(before + 3);
    const add = overview.locator('tr[data-tool="add"]');
    await add.waitFor();
    expect(await add.locator("td").nth(2).textContent()).toMatch(/^\d+(\.\d)? ms$/); // p50
    const fail = overview.locator('tr[data-tool="fail"]');
    expect(await fail.locator("td").last().textContent()).toMatch(/tool_error \d+/);
    const perMinute = overview.getByRole("img", { name: /^Calls per minute: \d+ in all, \d+ failed$/ });
    await perMinute.waitFor();
    expect(await perMinute.locator("rect.bar.bad").count()).toBeGreaterThan(0);
    await overview.getByRole("img", { name: /^Error rate per minute: \d+\.\d% over the range$/ }).waitFor();
    await screenshot(page, "overview");

    // Another range: wider steps, the same calls.
    await overview.getByRole("radio", { name: "Last week" }).check();
    await overview.locator('.overview[data-range="week"]').waitFor();
    await overview.getByRole("img", { name: /^Calls per hour: \d+ in all/ }).waitFor();
    expect(Number(await calls.textContent())).toBeGreaterThanOrEqual(before + 3);
  });

  it("is not shown to a call key, which opens on Tools", async () => {
    const { page } = browser;
    await page.evaluate(() => sessionStorage.clear());
    await page.goto(`${baseUrl}/`);
    const signInView = page.locator('main[data-view="sign-in"]');
    await signInView.getByLabel("API key", { exact: true }).fill("dev-call-key");
    await signInView.getByRole("button", { name: "Sign in" }).click();
    await viewReady(page, "tools");
    expect(await page.getByRole("link", { name: "Overview" }).count()).toBe(0);
    await openView(page, "tools", () => page.goto(viewUrl(baseUrl, "overview")));
  });
});
