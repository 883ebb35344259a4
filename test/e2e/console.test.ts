import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { apiCall, launch, screenshot, signIn, type Browser } from "./browser";

// The console's main flows in real Chromium against `wrangler dev` with the demo tenant.
const baseUrl = inject("baseUrl");
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launch();
  page = await browser.context.newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe("console flows", () => {
  it("signs in with a key kept for the tab only, never in the URL", async () => {
    await page.goto(`${baseUrl}/`);
    await expect.poll(() => page.getByLabel("API key").isVisible()).toBe(true);
    await screenshot(page, "sign-in");
    await page.getByLabel("API key").fill("wrong-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("That key is not valid for this tenant.").waitFor();

    await signIn(page, baseUrl, "dev-admin-key");
    expect(page.url()).not.toContain("dev-admin-key");
    expect(await page.evaluate(() => sessionStorage.getItem("toolgate.key"))).toBe("dev-admin-key");
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    await page.getByRole("heading", { name: "Tools" }).waitFor();
  });

  it("finds add in the searchable tool list, with policy badges and its definition per format", async () => {
    await page.getByLabel("Search tools").fill("add");
    const cards = page.locator("li.card.tool");
    await expect.poll(() => cards.count()).toBe(1);
    const add = page.locator('li[data-tool="add"]');
    for (const badge of ["risk low", "read-only", "concurrency unlimited", "approval never", "source code"]) {
      await add.getByText(badge, { exact: true }).waitFor();
    }
    await add.getByText("Definition of add").click();
    await add.getByLabel("Format").selectOption("anthropic");
    await add.getByLabel("add as anthropic").getByText('"input_schema"').waitFor();
    await screenshot(page, "tools");

    await page.getByLabel("Search tools").fill("");
    await page.locator('li[data-tool="send_message"]').getByText("approval always", { exact: true }).waitFor();
    await page.locator('li[data-tool="sleep"]').getByText("concurrency 1", { exact: true }).waitFor();
  });

  it("runs add through the generated form, validating in the browser first", async () => {
    await page.locator('li[data-tool="add"]').getByRole("link", { name: "Run add" }).click();
    await page.getByRole("heading", { name: "Run a tool" }).waitFor();
    await page.getByLabel("a", { exact: true }).fill("2");
    // b left empty: the core's validator stops the call in the page, and no request is sent.
    let sent = 0;
    page.on("request", (request) => void (request.url().includes("/v1/calls/openai") && sent++));
    await page.getByRole("button", { name: "Run add" }).click();
    await page.getByText("Not sent: 1 problem.").waitFor();
    expect(sent).toBe(0);

    await page.getByLabel("b", { exact: true }).fill("3");
    await page.getByRole("button", { name: "Run add" }).click();
    const result = page.locator(".result .record");
    await result.getByLabel("Structured output").getByText('"sum": 5').waitFor();
    expect(await result.getAttribute("data-status")).toBe("succeeded");
    expect(sent).toBe(1);
    await screenshot(page, "run");

    // Raw JSON mode carries the form's values over.
    await page.getByLabel("Raw JSON").check();
    expect(JSON.parse(await page.getByLabel("Arguments as JSON").inputValue())).toEqual({ a: 2, b: 3 });
  });

  it("shows the call in History, filtered by tool and status, with its detail", async () => {
    await page.getByRole("link", { name: "History" }).click();
    await page.getByLabel("Tool").selectOption("add");
    await page.getByLabel("Status").selectOption("succeeded");
    // The list of the last filters (an earlier load's answer, arriving late, is dropped).
    await page.locator('ol.calls[aria-busy="false"]').waitFor();
    const call = page.locator("details.call").first();
    await call.waitFor();
    await call.locator("summary").click();
    await call.getByLabel("Structured output").getByText('"sum": 5').waitFor();
    // One page holds every call so far: no "older" button.
    expect(await page.getByRole("button", { name: "Load older calls" }).isVisible()).toBe(false);
    await screenshot(page, "history");
  });

  it("keeps the list of the last filters when an earlier load answers late", async () => {
    await page.getByRole("link", { name: "Tools" }).click();
    // The unfiltered load History starts with answers 1.5 s late, after the filtered one.
    const unfiltered = (url: URL | string) => {
      const u = new URL(url);
      return u.pathname === "/v1/calls" && !u.searchParams.has("tool");
    };
    let delayed = false;
    await page.route(unfiltered, async (route) => {
      if (!delayed) {
        delayed = true;
        await new Promise((resolve) => setTimeout(resolve, 1_500));
      }
      await route.continue();
    });
    try {
      const late = page.waitForResponse((response) => unfiltered(response.url()));
      await page.getByRole("link", { name: "History" }).click();
      await page.getByLabel("Tool").selectOption("add");
      await page.getByLabel("Status").selectOption("denied");
      await page.getByText("No calls match.").waitFor();
      await late;
      await page.waitForTimeout(300); // time for the late answer to be rendered, if it were
      expect(await page.locator("details.call").count()).toBe(0);
      expect(await page.getByText("No calls match.").isVisible()).toBe(true);
    } finally {
      await page.unroute(unfiltered);
    }
  });

  it("shows calls in Live as they happen", async () => {
    await page.getByRole("link", { name: "Live" }).click();
    // "Connected" is the stream's open: it opens once every ledger shard's position is known.
    await page.getByText("Connected: new events appear at the top.").waitFor();
    await apiCall(baseUrl, [{ id: `live-${Date.now()}`, name: "add", args: { a: 40, b: 2 } }]);
    await page.locator('li.event[data-type="call.finished"][data-tool="add"]').first().waitFor();
    await page.locator('li.event[data-type="call.started"][data-tool="add"]').first().waitFor();
    await screenshot(page, "live");
  });

  it("parks send_message, approves it in Approvals, and the run sees it succeed", async () => {
    await page.goto(`${baseUrl}/#/run/send_message`);
    await page.getByLabel("to", { exact: true }).fill("ada@example.com");
    await page.getByLabel("text", { exact: true }).fill("The report is ready.");
    await page.getByRole("button", { name: "Run send_message" }).click();
    await page.getByText("Awaiting an admin's approval…").waitFor();

    // A second tab is a new session: sign in there as an admin.
    const admin = await browser.context.newPage();
    await signIn(admin, baseUrl, "dev-admin-key");
    await admin.getByRole("link", { name: "Approvals" }).click();
    const card = admin.locator('li.approval[data-tool="send_message"]').first();
    await card.getByText('"to": "ada@example.com"').waitFor();
    await screenshot(admin, "approvals");
    await card.getByLabel("Reason").fill("checked with Ada");
    await card.getByRole("button", { name: /^Approve send_message/ }).click();
    await admin.getByText("Approved send_message: succeeded.").waitFor();
    await admin.close();

    const result = page.locator('.result .record[data-status="succeeded"]');
    await result.getByLabel("Structured output").getByText('"delivered": true').waitFor({ timeout: 30_000 });
  });

  it("watches a gate's queue while sleep calls run", async () => {
    await page.getByRole("link", { name: "Gates" }).click();
    await page.getByRole("heading", { name: "Gates" }).waitFor();
    // Three sequential sleeps from three requests: one holds the gate, the others queue.
    const stamp = Date.now();
    const running = Promise.all([0, 1, 2].map((i) => apiCall(baseUrl, [{ id: `gate-${stamp}-${i}`, name: "sleep", args: { ms: 1_500 } }])));
    const gate = page.locator('li.gate[data-gate="demo:tool:sleep"]');
    await expect.poll(async () => Number(await gate.locator('[data-field="queue"]').textContent({ timeout: 1_000 }).catch(() => "0")), { timeout: 10_000, interval: 100 }).toBeGreaterThan(0);
    expect(await gate.locator('[data-field="holders"]').textContent()).toBe("1");
    expect(await gate.locator('[data-field="limit"]').textContent()).toBe("1");
    await screenshot(page, "gates");
    const answers = await running;
    expect(answers.map((a) => a.calls[0]?.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    await expect.poll(() => gate.locator('[data-field="queue"]').textContent(), { timeout: 10_000 }).toBe("0");
  });

  it("runs a pasted batch and shows the exact answer to append", async () => {
    await page.getByRole("link", { name: "Batch" }).click();
    await page.getByLabel("Insert an example").selectOption("anthropic");
    await page.getByRole("button", { name: "Run batch" }).click();
    const answer = page.getByLabel("Answer to append");
    await answer.getByText('"tool_use_id": "toolu_add_1"').waitFor();
    await answer.getByText('"role": "user"').waitFor();
    await page.getByText("Records (2)").waitFor();
    await screenshot(page, "batch");
  });
});
