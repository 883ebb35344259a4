import * as v from "valibot";
import { createRegistry, defineTool, type CallRecord, type Hooks } from "../../../src";

/** Two tools an SDK adapter test offers its model: one that adds, one that a hook always denies. */
export const add = defineTool({
  name: "add",
  description: "Add two numbers.",
  input: v.object({ a: v.number(), b: v.number() }),
  output: v.object({ sum: v.number() }),
  run: ({ a, b }) => ({ sum: a + b }),
});
const wipe = defineTool({
  name: "wipe",
  description: "Erase everything.",
  input: v.object({}),
  run: () => {
    throw new Error("wipe must never run");
  },
});
export const registry = createRegistry([add, wipe]);

/** Hooks that deny `wipe` and keep every terminal record, as a host's ledger would. */
export function recording(): { hooks: Hooks; records: CallRecord[] } {
  const records: CallRecord[] = [];
  return {
    records,
    hooks: {
      permission: (call) => (call.tool.name === "wipe" ? { deny: "not here" } : undefined),
      onResult: (record) => void records.push(record),
    },
  };
}
