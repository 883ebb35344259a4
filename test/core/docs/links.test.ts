import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { brokenBecause, headingAnchors, relativeLinks } from "./links";
import { docFiles, readDoc } from "./markdown";

/** Every relative link of README.md, docs/ and bench/RESULTS.md reaches a file, and a heading where it names one. */

const root = fileURLToPath(new URL("../../..", import.meta.url));

it("resolves every relative link and anchor of the docs", () => {
  const links = docFiles(root).flatMap((file) => relativeLinks(file, readDoc(root, file)));
  expect(links.length).toBeGreaterThan(20);
  const broken = links.flatMap((link) => {
    const reason = brokenBecause(root, link);
    return reason ? [`${link.file}:${link.line} (${link.target}): ${reason}`] : [];
  });
  expect(broken).toEqual([]);
});

it("links every docs page from the README", () => {
  const fromReadme = new Set(
    relativeLinks("README.md", readDoc(root, "README.md")).map((link) => link.target.split("#")[0]),
  );
  const pages = docFiles(root).filter((file) => file.startsWith("docs/"));
  expect(pages.filter((page) => !fromReadme.has(page))).toEqual([]);
});

it("finds links and anchors as GitHub renders them", () => {
  const page =
    "# A page\n\n## Sign-in for MCP clients (OAuth 2.1)\n\n## `GET /v1/gates`\n\n" +
    "## Notes\n\n## Notes\n\n```md\n[not a link](nowhere.md)\n```\n";
  expect([...headingAnchors(page)]).toEqual([
    "a-page",
    "sign-in-for-mcp-clients-oauth-21",
    "get-v1gates",
    "notes",
    "notes-1",
  ]);
  const text =
    "See [the ledger](ledger.md#retention), ![a view](console.png), `[code](x.md)` and [the web](https://example.com).";
  expect(relativeLinks("docs/a.md", text).map((link) => link.target)).toEqual(["ledger.md#retention", "console.png"]);
  expect(brokenBecause(root, { file: "docs/a.md", line: 1, target: "nowhere.md" })).toBe("no file docs/nowhere.md");
  expect(brokenBecause(root, { file: "README.md", line: 1, target: "#no-such-heading" })).toBe(
    'no heading "#no-such-heading" in README.md',
  );
});
