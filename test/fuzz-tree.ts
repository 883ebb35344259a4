/**
 * Near-miss inputs for fuzzing: a real JSON tree with one node (the seed-th, depth-first) replaced
 * by another value, or deleted. Decoders and parsers slip on these more than on random values.
 */
export function replaceNode(root: unknown, replacement: unknown, seed: number, remove = false): unknown {
  const slots: [Record<string, unknown> | unknown[], string | number][] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node))
      for (const [i, child] of node.entries()) {
        slots.push([node, i]);
        walk(child);
      }
    else if (node && typeof node === "object")
      for (const [key, child] of Object.entries(node)) slots.push([node as Record<string, unknown>, key]), walk(child);
  };
  walk(root);
  if (slots.length === 0) return replacement;
  const [holder, key] = slots[seed % slots.length]!;
  if (remove && !Array.isArray(holder)) delete (holder as Record<string, unknown>)[key as string];
  else (holder as Record<string | number, unknown>)[key] = replacement;
  return root;
}
