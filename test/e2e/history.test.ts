import { readFile } from "node:fs/promises";
import { describe, expect, inject, it } from "vitest";
import { apiCall, navigate, screenshot, signIn, usePage } from "./browser";

// History as a search: the Call id field, filters, paging and the NDJSON export of what is listed.
const baseUrl = inject("baseUrl");
const browser = usePage();

describe("History search", () => {
  it("finds calls by id prefix, pages through them and exports the filtered records", async () => {
    const { page } = browser;
    const tag = `hist-${Date.now()}`;
    await apiCall(
      baseUrl,
      Array.from({ length: 30 }, (_, i) => ({
        id: `${tag}-${String(i).padStart(2, "0")}`,
        name: "echo",
        args: { text: `n${i}` },
      })),
    );
    await apiCall(baseUrl, [{ id: `${tag}-add`, name: "add", args: { a: 1, b: 2 } }]);
    await signIn(page, baseUrl, "dev-admin-key");
    const history = await navigate(page, "History", "history");

    // A filter's change starts a load at once (aria-busy="true" on the list): then wait for its answer.
    const list = history.locator("ol.calls");
    const shows = async (text: string) => {
      await history.locator('ol.calls[aria-busy="false"]').waitFor({ state: "attached" });
      await history.getByText(text, { exact: true }).waitFor();
    };
    await history.getByLabel("Call id", { exact: true }).fill(tag);
    await history.getByLabel("Call id", { exact: true }).press("Enter");
    await shows("25 calls shown; older ones match too.");
    expect(await list.locator("details.call").count()).toBe(25);
    await history.getByRole("button", { name: "Load older calls" }).click();
    await shows("31 calls shown.");
    expect(await history.getByRole("button", { name: "Load older calls" }).isVisible()).toBe(false);
    // The summary line gives the date, the key and the surface.
    const first = history.locator(`details[data-call-id="${tag}-add"] summary`);
    expect(await first.textContent()).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d succeeded add — Add 1 and 2 · \d+ ms · .*-add · dev-call · http$/,
    );

    await history.getByLabel("Tool", { exact: true }).selectOption("add");
    await shows("1 call shown.");
    await history.getByLabel("Surface", { exact: true }).selectOption("mcp");
    await shows("No calls match.");
    await history.getByLabel("Surface", { exact: true }).selectOption("http");
    await shows("1 call shown.");
    await screenshot(page, "history-search");

    // The export holds what the filters match, not the page on screen.
    await history.getByLabel("Tool", { exact: true }).selectOption("echo");
    await shows("25 calls shown; older ones match too.");
    const download = page.waitForEvent("download");
    await history.getByRole("button", { name: "Export NDJSON" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe("toolgate-calls-demo.ndjson");
    const lines = (await readFile((await file.path())!, "utf8"))
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(30);
    expect(lines.every((entry) => entry.record.tool === "echo" && entry.record.callId.startsWith(tag))).toBe(true);
    await history.getByText("Exported 30 calls.").waitFor();

    // A time range that ends before the calls were made matches none of them.
    await history.getByLabel("To", { exact: true }).fill("2020-01-01T00:00:00");
    await history.getByLabel("To", { exact: true }).dispatchEvent("change");
    await shows("No calls match.");
  });
});
