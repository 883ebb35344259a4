import { describe, expect, inject, it } from "vitest";
import { apiCancel, openView, screenshot, signIn, usePage, viewReady } from "./browser";

// Rich results and the run form: media, markdown, tables, the JSON tree, constraints, and values the
// server refuses shown on their field.
const baseUrl = inject("baseUrl");
const browser = usePage();

describe("Rich results", () => {
  it("renders an image, a player, a link and markdown, with hostile text kept as text", async () => {
    const { page } = browser;
    await signIn(page, baseUrl, "dev-call-key");
    const run = await openView(page, "run", () => page.goto(`${baseUrl}/#/run/sample_media`));
    const form = run.getByRole("form", { name: "Run sample_media" });
    const title = `<img src=x onerror="window.__pwned=1">Tones`;
    await form.getByLabel("title (optional)", { exact: true }).fill(title);
    await form.getByLabel("hz (optional)", { exact: true }).fill("220");
    await form.getByRole("button", { name: "Run sample_media" }).click();
    const result = form.locator('.result .record[data-status="succeeded"]');
    await result.waitFor();
    // The markdown heading holds the title as text; the note's bold word is an element.
    expect(await result.locator(".markdown h4").textContent()).toBe(title);
    await result.locator(".markdown strong").getByText("gradient", { exact: true }).waitFor();
    const image = result.getByRole("img", { name: "Image 2 of the result (image/png)" });
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(24);
    const audio = result.getByLabel("Audio 3 of the result (audio/wav)");
    await expect
      .poll(() => audio.evaluate((el: HTMLAudioElement) => el.readyState >= 1 && el.duration))
      .toBeCloseTo(0.4, 2);
    const link = result.getByRole("link", { name: "MCP specification" }).first();
    expect(await link.getAttribute("href")).toBe("https://modelcontextprotocol.io/specification");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    await result.getByText(`Media sample “${title}” (220 Hz)`, { exact: true }).waitFor(); // the call summary
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('main img[src="x"]').count()).toBe(0);
    await screenshot(page, "result-media");
  });

  it("shows rows as a table and structured output as a collapsible tree", async () => {
    const { page } = browser;
    const run = await openView(page, "run", () => page.goto(`${baseUrl}/#/run/sample_table`));
    const form = run.getByRole("form", { name: "Run sample_table" });
    await form.getByRole("button", { name: "Run sample_table" }).click();
    const table = form.getByRole("region", { name: "Table: items" });
    await table.getByText("items (3 rows)").waitFor();
    expect(await table.locator("th").allTextContents()).toEqual(["sku", "name", "stock"]);
    expect(await table.locator("tbody tr").first().locator("td").allTextContents()).toEqual(["F-100", "apple", "0"]);
    await screenshot(page, "result-table");

    const add = await openView(page, "run", () => page.goto(`${baseUrl}/#/run/add`));
    const addForm = add.getByRole("form", { name: "Run add" });
    await addForm.getByLabel("a", { exact: true }).fill("2");
    await addForm.getByLabel("b", { exact: true }).fill("3");
    await addForm.getByRole("button", { name: "Run add" }).click();
    const tree = addForm.getByRole("group", { name: "Structured output" });
    await tree.getByText('"sum": 5', { exact: true }).waitFor();
    await addForm.getByText("Add 2 and 3", { exact: true }).waitFor();
  });
});

describe("Tool descriptions", () => {
  it("render their markdown: a code span is code, with no backticks, in Tools and in Run", async () => {
    const { page } = browser;
    const tools = await openView(page, "tools", () => page.goto(`${baseUrl}/#/tools`));
    const card = tools.locator('li[data-tool="slow_report"]');
    expect(await card.locator(".description code").allTextContents()).toEqual(["seconds"]);
    expect(await card.locator(".description").textContent()).toMatch(
      /^Write a report that takes seconds seconds \(runs detached/,
    );
    const run = await openView(page, "run", () => card.getByRole("link", { name: "Run slow_report" }).click());
    expect(await run.locator(".description code").allTextContents()).toEqual(["seconds"]);
    expect(await run.locator(".description").textContent()).not.toContain("`");
  });
});

describe("Run form", () => {
  it("shows constraints and defaults, and puts a value the server refuses on its field", async () => {
    const { page } = browser;
    const run = await openView(page, "run", () => page.goto(`${baseUrl}/#/run/sample_media`));
    const form = run.getByRole("form", { name: "Run sample_media" });
    await form.getByText("Pitch of the tone, in hertz").waitFor();
    await form.getByText("a whole number · 110 to 1760 · default 440", { exact: true }).waitFor();
    await form.getByText("1 to 80 characters · default Sample", { exact: true }).waitFor();
    expect(await form.getByLabel("hz (optional)", { exact: true }).getAttribute("placeholder")).toBe("440");

    // A page holding an older, laxer schema (no maximum length): the browser lets the value through
    // and the server refuses it; its message lands on the field.
    await page.route("**/v1/tools", async (route) => {
      const answer = await (await route.fetch()).json();
      for (const tool of answer.tools)
        if (tool.name === "sample_media") delete tool.inputSchema.properties.title.maxLength;
      await route.fulfill({ json: answer });
    });
    try {
      // A new page load (the catalogue is fetched once per load) on the same view.
      await page.reload();
      const fresh = await viewReady(page, "run");
      const lax = fresh.getByRole("form", { name: "Run sample_media" });
      const title = lax.getByLabel("title (optional)", { exact: true });
      await title.fill("x".repeat(81));
      await lax.getByRole("button", { name: "Run sample_media" }).click();
      await lax.getByText("The server refused 1 value (see the fields).").waitFor();
      expect(await title.getAttribute("aria-invalid")).toBe("true");
      const describedBy = (await title.getAttribute("aria-describedby"))!.split(" ");
      const error = lax.locator(`#${describedBy.at(-1)}`);
      expect(await error.textContent()).toMatch(/80/);
      await screenshot(page, "run-refused");
    } finally {
      await page.unrouteAll({ behavior: "wait" });
    }
  });

  it("puts each argument problem on its field, and in the box only what no field in view shows", async () => {
    const { page } = browser;
    const tools = await openView(page, "tools", () => page.goto(`${baseUrl}/#/tools`)); // a fresh form
    const run = await openView(page, "run", () => tools.getByRole("link", { name: "Run add" }).click());
    const form = run.getByRole("form", { name: "Run add" });
    await form.getByLabel("a", { exact: true }).fill("2");
    await form.getByRole("button", { name: "Run add" }).click();
    // b is missing: the browser's validator says so on b, like the server's refusals.
    await form.getByText("Not sent: 1 problem (see the fields).", { exact: true }).waitFor();
    const b = form.getByLabel("b", { exact: true });
    expect(await b.getAttribute("aria-invalid")).toBe("true");
    const error = form.locator(`#${(await b.getAttribute("aria-describedby"))!.split(" ").at(-1)}`);
    expect(await error.textContent()).toBe('Instance does not have required property "b".');
    expect(await form.locator("ul.issues").count()).toBe(0);
    expect(
      await form.getByRole("group", { name: "Arguments" }).evaluate((set) => set.classList.contains("invalid")),
    ).toBe(false);
    // In raw JSON mode no field is in view: the box lists every problem.
    await form.getByLabel("Raw JSON", { exact: true }).check();
    await form.getByLabel("Arguments as JSON", { exact: true }).fill('{ "a": "two" }');
    await form.getByRole("button", { name: "Run add" }).click();
    await form.getByText("Not sent: 2 problems.", { exact: true }).waitFor();
    expect((await form.locator("ul.issues li").allTextContents()).sort()).toEqual([
      'a: Instance type "string" is invalid. Expected "number".',
      'b: Instance does not have required property "b".',
    ]);
  });

  it("fills a call's summary with the defaults of what it left out, in Run and in History", async () => {
    const { page } = browser;
    const tools = await openView(page, "tools", () => page.goto(`${baseUrl}/#/tools`)); // a fresh form
    const run = await openView(page, "run", () => tools.getByRole("link", { name: "Run sample_media" }).click());
    const form = run.getByRole("form", { name: "Run sample_media" });
    const id = `defaults-${Date.now()}`;
    await form.locator("#call-id").fill(id);
    await form.getByRole("button", { name: "Run sample_media" }).click();
    const result = form.locator('.result .record[data-status="succeeded"]');
    await result.waitFor();
    expect(await result.locator("dl.facts").textContent()).toContain("Media sample “Sample” (440 Hz)");
    const history = await openView(page, "history", () => page.goto(`${baseUrl}/#/history/${id}`));
    expect(await history.locator(`details[data-call-id="${id}"] > summary`).textContent()).toContain(
      "sample_media — Media sample “Sample” (440 Hz)",
    );
  });

  it("shows a detached call that runs on as a status line, not as an error", async () => {
    const { page } = browser;
    const run = await openView(page, "run", () => page.goto(`${baseUrl}/#/run/slow_report`));
    const form = run.getByRole("form", { name: "Run slow_report" });
    const id = `detached-${Date.now()}`;
    await form.getByLabel("seconds", { exact: true }).fill("60");
    await form.locator("#call-id").fill(id);
    await form.getByRole("button", { name: "Run slow_report" }).click();
    const record = form.locator('.result .record[data-status="running"]');
    try {
      await record.waitFor();
      // The record's words (the API's answer for a call that runs on) are its status, not an alert.
      expect(await form.locator(".result").getByRole("alert").count()).toBe(0);
      expect(await record.locator(".notice.error").count()).toBe(0);
      expect(await record.getByRole("status").textContent()).toMatch(/runs on, detached from this request/);
      await screenshot(page, "run-detached");
    } finally {
      await apiCancel(baseUrl, id);
    }
  });
});
