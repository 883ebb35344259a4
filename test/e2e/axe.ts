import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

/** axe-core run in a page of the console: its serious and critical WCAG 2 A/AA violations. */

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
export async function seriousViolations(page: Page): Promise<{ id: string; help: string; targets: string[] }[]> {
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
