import * as v from "valibot";
import { defineTool } from "../src";

const FRUIT = ["apple", "banana", "cherry", "damson", "elderberry", "fig", "grape", "huckleberry", "imbe", "jackfruit"];

/** Rows of a small inventory: the console shows them as a table (its render hint). */
export default defineTool({
  name: "sample_table",
  description: "List the first `count` items of a small fruit inventory (to see a result rendered as a table).",
  input: v.object({
    count: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(FRUIT.length), v.description("How many rows")),
      3,
    ),
  }),
  output: v.object({ items: v.array(v.object({ sku: v.string(), name: v.string(), stock: v.number() })) }),
  policy: { readOnly: true, idempotent: true },
  render: { call: "First {count} inventory rows", result: "table" },
  tags: ["demo"],
  run: ({ count }) => ({
    items: FRUIT.slice(0, count).map((name, i) => ({ sku: `F-${100 + i}`, name, stock: (i * 7) % 13 })),
  }),
});
