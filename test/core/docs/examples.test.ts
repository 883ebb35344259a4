import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevServer, type DevServer } from "../../servers/wrangler-dev";
import { expectationsOf } from "./expectation";
import { docFiles, fencedBlocks, readDoc } from "./markdown";
import { classifyShellBlocks, problemsOf, runExample } from "./shell-example";

/**
 * Every shell example of README.md and docs/ that calls the demo tenant runs, as written, against a
 * real `wrangler dev` of the demo (fresh state, its own port put where the examples say
 * 127.0.0.1:8787), in document order. It must exit 0, every curl must get a 2xx/3xx unless its
 * `# → <status>` says otherwise, and each `# →` expectation must hold (see ./expectation.ts).
 * Blocks marked ` ```sh no-test ` (a deploy, a secret, a remote tenant) are listed as skipped.
 */

const root = fileURLToPath(new URL("../../..", import.meta.url));
const blocks = docFiles(root).flatMap((file) => fencedBlocks(file, readDoc(root, file)));
const { run, noTest, unmarked } = classifyShellBlocks(blocks);
const name = (block: { file: string; line: number }) => `${block.file}:${block.line}`;

/** Long enough for the slowest example (a detached report of a few seconds); a bound for hangs only. */
const EXAMPLE_TIMEOUT_MS = 60_000;

it("marks every shell block that does not call the demo as no-test", () => {
  expect(unmarked.map(name), "shell blocks that neither call http://127.0.0.1:8787 nor say ```sh no-test").toEqual([]);
});

it("has examples to run and parses every expectation", () => {
  expect(run.length).toBeGreaterThan(5);
  for (const block of run) expect(() => expectationsOf(block.body), name(block)).not.toThrow();
});

describe("docs examples against wrangler dev", () => {
  let server: DevServer;
  beforeAll(async () => {
    server = await startDevServer();
  }, 120_000);
  afterAll(() => server?.stop());

  it.each(run.map((block) => [name(block), block] as const))(
    "%s",
    async (_, block) => {
      const host = new URL(server.url).host;
      const result = await runExample(block.body, host, EXAMPLE_TIMEOUT_MS);
      const problems = problemsOf(result, expectationsOf(block.body).length, block.line);
      expect(problems, name(block)).toEqual([]);
    },
    EXAMPLE_TIMEOUT_MS + 10_000,
  );

  // Visible in the summary as skipped: what a reader must try against a deployed tenant.
  it.skip.each(noTest.map((block) => [name(block)] as const))("%s (no-test)", () => {});
});
