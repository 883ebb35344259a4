import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { apiCall, openView, signIn, usePage, viewUrl } from "./browser";

// axe-core in every view, with its data on screen: no serious or critical violation (WCAG 2 A/AA).
const baseUrl = inject("baseUrl");
const browser = usePage();
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * The serious and critical violations on the page now (axe is evaluated through the driver: the page's CSP stays on).
 */
async function seriousViolations(page: Page): Promise<{ id: string; help: string; targets: string[] }[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const violations = (await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: unknown[] }> } }
    ).axe;
    return (
      await axe.run(document, {
        runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
        resultTypes: ["violations"],
      })
    ).violations;
  })) as Violation[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, help: v.help, targets: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)) }));
}

describe("accessibility (axe-core)", () => {
  it("finds no serious or critical violation in any view, light and dark", async () => {
    const { page } = browser;
    await page.goto(`${baseUrl}/`);
    await page.getByLabel("API key").waitFor();
    expect({ view: "sign-in", violations: await seriousViolations(page) }).toEqual({ view: "sign-in", violations: [] });
    // The check itself can fail: a field with no name is caught, then taken away.
    await page.evaluate(() =>
      document.querySelector("main")!.append(Object.assign(document.createElement("input"), { id: "axe-probe" })),
    );
    expect((await seriousViolations(page)).map((v) => v.id)).toContain("label");
    await page.evaluate(() => document.getElementById("axe-probe")!.remove());
    await signIn(page, baseUrl, "dev-admin-key");
    const tag = `axe-${Date.now()}`;
    await apiCall(baseUrl, [
      { id: `${tag}-add`, name: "add", args: { a: 1, b: 2 } },
      { id: `${tag}-send`, name: "send_message", args: { to: "ada@example.com", text: "Waiting for axe." } },
    ]);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const view of [
        "overview",
        "tools",
        "run/sample_media",
        "batch",
        `history/${tag}-add`,
        "live",
        "playground",
        "approvals",
        "gates",
        "adapters",
        "keys",
      ]) {
        const id = view.split("/")[0]!;
        const main = await openView(page, id, () => page.goto(viewUrl(baseUrl, view)));
        if (id === "run") {
          // With a rich result on screen: markdown, an image, a player, a link.
          const form = main.getByRole("form", { name: "Run sample_media" });
          await form.getByRole("button", { name: "Run sample_media" }).click();
          await form.locator('.result .record[data-status="succeeded"]').waitFor();
        }
        if (id === "history") await main.getByLabel(`Call ${tag}-add`).waitFor();
        expect({ view, scheme, violations: await seriousViolations(page) }).toEqual({ view, scheme, violations: [] });
      }
    }
  });
});
