import { parseDependencyTree, type DependencyTree } from "dpdm";
import { expect, it } from "vitest";

/**
 * No module of src/, worker/ or web/ imports itself through others. dpdm parses and resolves the
 * imports (type-only imports count: a type cycle is still a knot to read); the cycles are the groups
 * of files that import each other (strongly connected components), so every knot shows whole.
 */

/** Groups of files that import each other, each sorted (Tarjan's algorithm over the project's own files). */
function knots(tree: DependencyTree): string[][] {
  const edges = new Map<string, string[]>();
  for (const [file, deps] of Object.entries(tree)) {
    if (deps)
      edges.set(
        file,
        deps.flatMap((dep) => (dep.id !== null && tree[dep.id] ? [dep.id] : [])),
      );
  }
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const to of edges.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const knot: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      knot.push(member);
    } while (member !== file);
    if (knot.length > 1 || edges.get(file)!.includes(file)) found.push(knot.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return found;
}

it("no import cycle in src/, worker/ or web/", async () => {
  const tree = await parseDependencyTree(["src/**/*.ts", "worker/**/*.ts", "web/**/*.{ts,tsx}"], { transform: false });
  // The glob found the files
  expect(Object.keys(tree).filter((file) => file.startsWith("worker/")).length).toBeGreaterThan(50);
  const cycles = knots(tree).map((knot) => knot.join(", "));
  expect(cycles).toEqual([]);
});
