import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runSuites, SUITES } from "../../../scripts/test.mjs";

const scratch = join(".tmp", `test-runner-${crypto.randomUUID().slice(0, 8)}`);
mkdirSync(scratch, { recursive: true });
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A suite that leaves a file behind when it ran, and exits with `code`. */
const suite = (name: string, code: number) => ({
  name,
  command: [
    process.execPath,
    "-e",
    `require("node:fs").writeFileSync(${JSON.stringify(join(scratch, name))}, ""); process.exit(${code})`,
  ],
});

describe("npm test", () => {
  it("is the runner, and the runner runs the console build, the typecheck, vitest and the browser tests", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.test).toBe("node scripts/test.mjs");
    expect(SUITES.map((entry) => entry.name)).toEqual([
      "console build",
      "typecheck",
      "vitest (core, worker)",
      "console e2e (Chromium)",
    ]);
  });

  it("runs every suite after one failed, reports each, and fails the run", () => {
    const lines: string[] = [];
    const skipped = { ...suite("browser", 0), skip: () => "no Chromium here" };
    const results = runSuites([suite("first", 0), suite("failing", 3), suite("after", 0), skipped], {
      log: (line) => lines.push(line),
    });
    expect(results.map(({ name, outcome, detail }) => [name, outcome, detail])).toEqual([
      ["first", "passed", ""],
      ["failing", "failed", "exit 3"],
      ["after", "passed", ""],
      ["browser", "skipped", "no Chromium here"],
    ]);
    expect(["first", "failing", "after"].map((name) => existsSync(join(scratch, name)))).toEqual([true, true, true]);
    expect(existsSync(join(scratch, "browser"))).toBe(false);
    const summary = lines.slice(lines.findIndex((line) => line.includes("npm test:")));
    const expected = [
      String.raw`✔ first +passed in [\d.]+ s`,
      String.raw`.*✘ failing +FAILED \(exit 3\) in [\d.]+ s`,
      ".*✔ after +passed.*",
      ".*– browser +skipped: no Chromium here",
      String.raw`1 of 4 suites failed\.`,
    ];
    expect(summary.join("\n")).toMatch(new RegExp(expected.join("\n")));
  });

  it("fails a suite that cannot run where it is required (the browser tests in CI)", () => {
    const results = runSuites([{ ...suite("browser", 0), skip: () => "no Chromium here", required: () => true }], {
      log: () => undefined,
    });
    expect(results[0]).toMatchObject({ outcome: "failed", detail: "no Chromium here" });
  });
});
