import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  apiCall,
  apiCancel,
  holdFirstRequest,
  launch,
  navigate,
  openView,
  screenshot,
  signIn,
  viewReady,
  type Browser,
} from "./browser";

// The console's main flows in real Chromium against `wrangler dev` with the demo tenant. Every step
// acts inside the view it needs once that view is on screen (see openView): never on timing.
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

/** The figures of one gate card, read in one go so they come from the same refresh. */
async function gateFigures(gate: Locator): Promise<Record<string, string> | null> {
  const [figures] = await gate.evaluateAll((cards) =>
    cards.map((card) =>
      Object.fromEntries(
        [...card.querySelectorAll<HTMLElement>("[data-field]")].map((dd) => [dd.dataset.field, dd.textContent ?? ""]),
      ),
    ),
  );
  return figures ?? null;
}

describe("console flows", () => {
  it("signs in with a key kept for the tab only, never in the URL", async () => {
    await page.goto(`${baseUrl}/`);
    const signInView = page.locator('main[data-view="sign-in"]');
    await signInView.getByLabel("API key", { exact: true }).waitFor();
    await screenshot(page, "sign-in");
    await signInView.getByLabel("API key", { exact: true }).fill("wrong-key");
    await signInView.getByRole("button", { name: "Sign in" }).click();
    await signInView.getByText("That key is not valid for this tenant.").waitFor();

    const tools = await signIn(page, baseUrl, "dev-admin-key");
    expect(page.url()).not.toContain("dev-admin-key");
    expect(await page.evaluate(() => sessionStorage.getItem("toolgate.key"))).toBe("dev-admin-key");
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(await tools.getByRole("heading", { level: 1 }).textContent()).toBe("Tools");
  });

  it("finds add in the searchable tool list, with policy badges and its definition per format", async () => {
    const tools = await viewReady(page, "tools");
    await tools.getByLabel("Search tools", { exact: true }).fill("add");
    const cards = tools.locator("li.card.tool");
    await expect.poll(() => cards.count()).toBe(1);
    const add = tools.locator('li[data-tool="add"]');
    for (const badge of ["risk low", "read-only", "concurrency unlimited", "approval never", "source code"]) {
      await add.getByText(badge, { exact: true }).waitFor();
    }
    // Opening the definition loads it as openai; that answer is held until the anthropic one is on
    // screen, and must not replace it when it finally comes.
    const release = await holdFirstRequest(page, (url) => url.pathname === "/v1/tools/openai");
    const definition = add.locator(".definition");
    try {
      await add.getByText("Definition of add").click();
      await add.getByLabel("Format", { exact: true }).selectOption("anthropic");
      await definition.getByLabel("add as anthropic").getByText('"input_schema"').waitFor();
      release();
      // Busy until every load it started has answered: the late openai one included.
      await add.locator('.definition[aria-busy="false"]').waitFor({ state: "attached" });
      expect(await definition.getByLabel(/^add as /).getAttribute("aria-label")).toBe("add as anthropic");
    } finally {
      release();
      await page.unrouteAll({ behavior: "wait" });
    }
    await screenshot(page, "tools");

    await tools.getByLabel("Search tools", { exact: true }).fill("");
    await tools.locator('li[data-tool="send_message"]').getByText("approval always", { exact: true }).waitFor();
    await tools.locator('li[data-tool="sleep"]').getByText("concurrency 1", { exact: true }).waitFor();
  });

  it("runs add through the generated form, validating in the browser first", async () => {
    const tools = await viewReady(page, "tools");
    const run = await openView(page, "run", () =>
      tools.locator('li[data-tool="add"]').getByRole("link", { name: "Run add" }).click(),
    );
    const form = run.getByRole("form", { name: "Run add" });
    await form.getByLabel("a", { exact: true }).fill("2");
    // b left empty: the core's validator stops the call in the page, and no request is sent.
    let sent = 0;
    const count = (request: { url(): string }) => void (request.url().includes("/v1/calls/openai") && sent++);
    page.on("request", count);
    try {
      await form.getByRole("button", { name: "Run add" }).click();
      await form.getByText("Not sent: 1 problem (see the fields).").waitFor();
      expect(sent).toBe(0);

      await form.getByLabel("b", { exact: true }).fill("3");
      await form.getByRole("button", { name: "Run add" }).click();
      const result = form.locator(".result .record");
      await result.getByLabel("Structured output").getByText('"sum": 5').waitFor();
      expect(await result.getAttribute("data-status")).toBe("succeeded");
      expect(sent).toBe(1);
    } finally {
      page.off("request", count);
    }
    await screenshot(page, "run");

    // Raw JSON mode carries the form's values over.
    await form.getByLabel("Raw JSON", { exact: true }).check();
    expect(JSON.parse(await form.getByLabel("Arguments as JSON", { exact: true }).inputValue())).toEqual({
      a: 2,
      b: 3,
    });
  });

  it("shows the call in History, filtered by tool and status, with its detail", async () => {
    const history = await navigate(page, "History", "history");
    await history.getByLabel("Tool", { exact: true }).selectOption("add");
    await history.getByLabel("Status", { exact: true }).selectOption("succeeded");
    // Choosing a filter starts a load at once (aria-busy="true"): this is the list of the last filters.
    await history.locator('ol.calls[aria-busy="false"]').waitFor({ state: "attached" });
    const call = history.locator("details.call").first();
    await call.locator("summary").click();
    await call.getByLabel("Structured output").getByText('"sum": 5').waitFor();
    // One page holds every call so far: no "older" button.
    expect(await history.getByRole("button", { name: "Load older calls" }).isVisible()).toBe(false);
    await screenshot(page, "history");
  });

  it("keeps the list of the last filters when an earlier load answers late", async () => {
    // The unfiltered list is not empty
    await apiCall(baseUrl, [{ id: `late-${Date.now()}`, name: "add", args: { a: 1, b: 1 } }]);
    await navigate(page, "Tools", "tools");
    // History's first load (no filters) is held until the filtered list is on screen, then answers.
    const unfiltered = (url: URL) =>
      url.pathname === "/v1/calls" && !url.searchParams.has("tool") && !url.searchParams.has("status");
    const release = await holdFirstRequest(page, unfiltered);
    try {
      // Not ready: its first data is the held load.
      const history = await navigate(page, "History", "history", { ready: false });
      await history.getByLabel("Tool", { exact: true }).selectOption("add");
      await history.getByLabel("Status", { exact: true }).selectOption("denied");
      await history.locator('ol.calls[aria-busy="false"]').waitFor({ state: "attached" });
      await history.getByText("No calls match.").waitFor();
      release();
      // The view's first load has now answered (aria-busy clears once it settled) and was dropped.
      await viewReady(page, "history");
      expect(await history.locator("details.call").count()).toBe(0);
      expect(await history.getByText("No calls match.").isVisible()).toBe(true);
    } finally {
      release();
      await page.unrouteAll({ behavior: "wait" });
    }
  });

  it("opens Live with the recent events, Connecting… until its stream is open", async () => {
    const earlier = `live-earlier-${Date.now()}`;
    await apiCall(baseUrl, [{ id: earlier, name: "add", args: { a: 1, b: 2 } }]);
    const isStream = (url: URL) => url.pathname === "/v1/events";
    const requested = page.waitForRequest((request) => isStream(new URL(request.url())));
    // The stream's answer is held: until it comes, the view says so and is not ready.
    const release = await holdFirstRequest(page, isStream);
    try {
      const live = await navigate(page, "Live", "live", { ready: false });
      await requested;
      expect(await live.getByRole("status").textContent()).toBe("Connecting…");
      expect(await live.getAttribute("aria-busy")).toBe("true");
      release();
      // Ready once open ("Connected" is the stream's ready) with the recent events on screen.
      await viewReady(page, "live");
      expect(await live.getByRole("status").textContent()).toBe("Connected: new events appear at the top.");
      const mine = live.locator("li.event", { hasText: earlier });
      expect(await mine.evaluateAll((items) => items.map((li) => li.getAttribute("data-type")))).toEqual([
        "call.finished",
        "call.started",
      ]);
    } finally {
      release();
      await page.unrouteAll({ behavior: "wait" });
    }
  });

  it("shows calls in Live as they happen", async () => {
    const live = await viewReady(page, "live");
    const id = `live-${Date.now()}`;
    await apiCall(baseUrl, [{ id, name: "add", args: { a: 40, b: 2 } }]);
    // New events go on top.
    await live.locator('li.event[data-type="call.finished"][data-tool="add"]', { hasText: id }).waitFor();
    expect(await live.locator("li.event").first().textContent()).toContain(id);
    await live.locator('li.event[data-type="call.started"][data-tool="add"]', { hasText: id }).waitFor();
    await screenshot(page, "live");
  });

  it("parks send_message, approves it in Approvals, and the run sees it succeed", async () => {
    const run = await openView(page, "run", () => page.goto(`${baseUrl}/#/run/send_message`));
    const form = run.getByRole("form", { name: "Run send_message" });
    await form.getByLabel("to", { exact: true }).fill("ada@example.com");
    await form.getByLabel("text", { exact: true }).fill("The report is ready.");
    await form.getByRole("button", { name: "Run send_message" }).click();
    await form.getByText("Awaiting an admin's approval…").waitFor();

    // A second tab is a new session: sign in there as an admin.
    const admin = await browser.context.newPage();
    await signIn(admin, baseUrl, "dev-admin-key");
    const approvals = await navigate(admin, "Approvals", "approvals");
    const card = approvals.locator('li.approval[data-tool="send_message"]').first();
    await card.getByText('"to": "ada@example.com"').waitFor();
    await screenshot(admin, "approvals");
    await card.getByLabel("Reason").fill("checked with Ada");
    await card.getByRole("button", { name: /^Approve send_message/ }).click();
    await approvals.getByText("Approved send_message: succeeded.").waitFor();
    await admin.close();

    const result = form.locator('.result .record[data-status="succeeded"]');
    await result.getByLabel("Structured output").getByText('"delivered": true').waitFor({ timeout: 30_000 });
  });

  it("watches a gate's queue while sleep calls run", async () => {
    const gates = await navigate(page, "Gates", "gates");
    const gate = gates.locator('li.gate[data-gate="demo:tool:sleep"]');
    const holderId = `gate-${Date.now()}-holder`;
    // A long sleep holds the gate (limit 1) until this test cancels it.
    const holding = apiCall(baseUrl, [{ id: holderId, name: "sleep", args: { ms: 30_000 } }]);
    await gate.getByLabel("Holders of demo:tool:sleep").getByText(holderId).waitFor();
    // Two more sleeps from two requests wait behind it, for as long as it holds.
    const queued = Promise.all(
      [0, 1].map((i) => apiCall(baseUrl, [{ id: `${holderId}-${i}`, name: "sleep", args: { ms: 10 } }])),
    );
    await expect.poll(() => gateFigures(gate), { timeout: 15_000 }).toEqual({ limit: "1", holders: "1", queue: "2" });
    await screenshot(page, "gates");
    await apiCancel(baseUrl, holderId);
    expect((await holding).calls[0]?.status).toBe("cancelled");
    const answers = await queued;
    expect(answers.map((a) => a.calls[0]?.status)).toEqual(["succeeded", "succeeded"]);
    await expect.poll(() => gateFigures(gate), { timeout: 15_000 }).toEqual({ limit: "1", holders: "0", queue: "0" });
  });

  it("runs a pasted batch and shows the exact answer to append", async () => {
    const batch = await navigate(page, "Batch", "batch");
    await batch.getByLabel("Insert an example", { exact: true }).selectOption("anthropic");
    await batch.getByRole("button", { name: "Run batch" }).click();
    const answer = batch.getByLabel("Answer to append");
    await answer.getByText('"tool_use_id": "call_add_1"').waitFor();
    await answer.getByText('"role": "user"').waitFor();
    await batch.getByText("Records (2)").waitFor();
    await screenshot(page, "batch");
  });

  it("follows a detached call's progress in History and cancels it", async () => {
    const id = `report-${Date.now()}`;
    // slow_report runs detached: the API answers at once with the running record.
    const started = await apiCall(baseUrl, [{ id, name: "slow_report", args: { seconds: 60 } }]);
    expect(started.calls[0]?.status).toBe("running");
    const history = await navigate(page, "History", "history");
    const call = history.locator(`details[data-call-id="${id}"]`);
    await call.locator("summary").click();
    const record = call.getByLabel(`Call ${id}`);
    // Progress arrives from the event stream while the call is open: a later second than the first seen.
    await record.getByText(/of 60 — [1-9]\d* of 60 s written/).waitFor({ timeout: 15_000 });
    await screenshot(page, "history-running");
    await record.getByRole("button", { name: "Cancel this call" }).click();
    await call.locator('section.record[data-status="cancelled"]').waitFor({ timeout: 15_000 });
  });
});
