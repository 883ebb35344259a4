import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  covers,
  holds,
  importArrows,
  isPrefixPath,
  parentOf,
  partOf,
  readParts,
  refusal,
  ruledBy,
  RULES_FILE,
  typedPaths,
} from "../../layers";

/**
 * Every import of the repository follows the layer rules of docs/architecture.json: the parts
 * (core and its sub-parts, worker, web, tools, tenants, scripts, bench, test) and the arrows allowed
 * between them. A failure names the file, what it imports, and the rule it breaks.
 */

const parts = readParts();

describe(RULES_FILE, () => {
  it("names only parts it declares, each with a path of its own inside its parent's; a file's path is a file", () => {
    const names = Object.keys(parts);
    const unknown = Object.entries(parts).flatMap(([name, spec]) =>
      [...(spec.imports ?? []), ...(spec.types ?? []), ...(spec.except ?? [])]
        .filter((target) => target !== "*" && !names.includes(target))
        .map((target) => `${name} names ${target}`),
    );
    expect(unknown).toEqual([]);
    // A sub-part lies in its parent: core/contract's path is in core's.
    const orphans = names.filter((name) => {
      const parent = parentOf(name);
      return parent !== undefined && !(parts[parent] && holds(parts[parent].path, parts[name]!.path));
    });
    expect(orphans).toEqual([]);
    const paths = Object.values(parts).map((spec) => spec.path);
    expect(new Set(paths).size).toBe(paths.length);
    // A folder may be empty (a part that is coming); a file that is missing is a rule that checks nothing.
    expect(paths.filter((path) => !isPrefixPath(path) && !existsSync(path))).toEqual([]);
  });

  it("holds the arrows the architecture promises", () => {
    const allowed = (from: string, to: string, typesOnly = false) => refusal(parts, from, to, typesOnly) === undefined;
    // The core never reaches out: no Worker, console, tools or Node; its parts do not use the client.
    for (const to of ["worker", "worker/ledger", "web", "tools", "tenants", "node", "test"]) {
      expect(allowed("core", to), `core → ${to}`).toBe(false);
      expect(allowed("core/pipeline", to), `core/pipeline → ${to}`).toBe(false);
    }
    expect(allowed("core/pipeline", "core/client")).toBe(false);
    expect(allowed("core/client", "core/pipeline")).toBe(true);
    // The contract is types of the core only.
    expect(allowed("core/contract", "core", true)).toBe(true);
    expect(allowed("core/contract", "core/formats", true)).toBe(true);
    expect(allowed("core/contract", "core")).toBe(false);
    expect(allowed("core/contract", "core/client", true)).toBe(false);
    // The Worker: the core and its contract, never the client, the public API (which holds it) or the console.
    expect(allowed("worker/ledger", "core/contract")).toBe(true);
    expect(allowed("worker/tenant", "core/gates")).toBe(true);
    for (const to of ["core/client", "core/api", "web", "node"]) {
      expect(allowed("worker/routes", to), `worker → ${to}`).toBe(false);
    }
    // The console: the contract, the client and the core, never the Worker.
    expect(allowed("web", "core/contract")).toBe(true);
    expect(allowed("web", "core/client")).toBe(true);
    expect(allowed("web", "worker")).toBe(false);
    expect(allowed("web", "node")).toBe(false);
    expect(allowed("tools", "worker")).toBe(false);
    expect(allowed("test", "worker/ledger")).toBe(true);
  });

  it("places files in the longest part that holds them, sub-parts under their parent's rules", () => {
    expect(partOf(parts, "src/contract/calls.ts")).toBe("core/contract");
    expect(partOf(parts, "src/index.ts")).toBe("core/api");
    expect(partOf(parts, "src/mcp/versions.ts")).toBe("core/mcp");
    expect(partOf(parts, "worker/tenant.ts")).toBe("worker");
    expect(partOf(parts, "worker/tenant/config.ts")).toBe("worker/tenant");
    expect(partOf(parts, "node:fs")).toBe("node");
    expect(partOf(parts, "README.md")).toBeUndefined();
    expect(ruledBy(parts, "core/mcp")).toBe("core");
    expect(covers("core", "core/contract")).toBe(true);
    expect(covers("core", "corelike")).toBe(false);
    expect(refusal(parts, "worker/ledger", "core/client", true)).toBe(
      "worker/ledger → core/client (types) is not allowed: worker/ledger (as worker) " +
        "imports worker, core, tools, package; except core/api, core/client",
    );
  });
});

it("every import of the repository follows docs/architecture.json", async () => {
  const arrows = await importArrows(typedPaths(parts));
  // The globs found the code, and types-only imports were told apart.
  expect(arrows.filter(({ file }) => file.startsWith("worker/")).length).toBeGreaterThan(300);
  expect(arrows.some(({ file, typesOnly }) => file.startsWith("src/contract/") && typesOnly)).toBe(true);
  const broken = arrows.flatMap(({ file, imported, typesOnly }) => {
    const from = partOf(parts, file);
    const to = partOf(parts, imported);
    if (!from || !to) return [`${file} → ${imported}: ${from ? imported : file} is in no part of ${RULES_FILE}`];
    const why = refusal(parts, from, to, typesOnly);
    return why ? [`${file} → ${imported}: ${why}`] : [];
  });
  expect(broken).toEqual([]);
});
