import { parseDependencyTree } from "dpdm";
import { expect, it } from "vitest";

/**
 * The tenant builds on its adapters, never the reverse: worker/tenant/ imports worker/adapters/
 * (their builder, config sections, remote tool lists), and no module of worker/adapters/ imports
 * worker/tenant/ (type-only imports count), so either can be read without the other's internals.
 */
it("worker/adapters/ imports nothing of worker/tenant/", async () => {
  const tree = await parseDependencyTree(["worker/adapters/**/*.ts", "worker/tenant/**/*.ts"], { transform: false });
  const arrows = Object.entries(tree).flatMap(([file, deps]) =>
    (deps ?? []).flatMap((dep) => (dep.id ? [`${file} -> ${dep.id}`] : [])),
  );
  const between = (from: string, to: string) =>
    arrows.filter((arrow) => arrow.startsWith(from) && arrow.includes(` -> ${to}`));
  expect(between("worker/tenant/", "worker/adapters/").length).toBeGreaterThan(0); // the globs found both folders
  expect(between("worker/adapters/", "worker/tenant/")).toEqual([]);
});
