/**
 * How toolgate's core grows: registries of 10 / 100 / 1,000 tools (build, first and repeated listing
 * per format, lookup, one call), batches of 10 / 100 / 1,000 calls, and arguments of 1 KiB / 64 KiB /
 * 1 MiB (a long string and an array of records) against the floor at the same size.
 * Run: node scripts/run-ts.mjs bench/scale.ts
 */
import * as v from "valibot";
import {
  createRegistry,
  defineTool,
  executeBatch,
  executeCall,
  type ExecuteOptions,
  type Registry,
  type Tool,
} from "../src/index";
import { FORMATS, openai } from "../src/formats/index";
import { fmt, table } from "./harness";
import { isMain } from "./peers/is-main";
import { interleave } from "./peers/rounds";

const SIZES = [10, 100, 1_000] as const;

/** n distinct tools with a realistic small schema (string, optional number, array, enum). */
function makeTools(n: number): Tool[] {
  return Array.from({ length: n }, (_, i) =>
    defineTool({
      name: `tool_${i}`,
      description: `Tool number ${i}: looks things up by id, with optional count and tags.`,
      input: v.object({
        id: v.pipe(v.string(), v.minLength(1)),
        count: v.optional(v.number()),
        tags: v.array(v.string()),
        mode: v.picklist(["fast", "full"]),
      }),
      run: ({ id }) => ({ id }),
    }),
  );
}

/** Median ns of `once` over fresh inputs: for costs that a cache would hide on the second try. */
function coldMedian(reps: number, prepare: () => unknown, once: (input: never) => unknown): number {
  const samples: number[] = [];
  for (let r = 0; r < reps; r++) {
    const input = prepare();
    const start = process.hrtime.bigint();
    once(input as never);
    samples.push(Number(process.hrtime.bigint() - start));
  }
  return samples.sort((a, b) => a - b)[reps >> 1]!;
}

/** Median ns per call of op, in calibrated rounds (bench/peers/rounds.ts; CLOCK=cpu applies). */
const time = async (op: () => unknown) =>
  (await interleave([{ name: "op", op }], { roundMs: 25, rounds: 7, warmupRounds: 2 }))[0]!.nsPerOp;

async function registryRows(): Promise<Array<Record<string, string | number>>> {
  const rows: Record<string, Record<string, string | number>> = {};
  const put = (what: string, n: number, value: string) =>
    ((rows[what] ??= { what })[`n=${n.toLocaleString("en-US")}`] = value);
  for (const n of SIZES) {
    const tools = makeTools(n);
    put("createRegistry", n, fmt(await time(() => createRegistry(tools))));
    const registry = createRegistry(tools);
    for (const format of Object.values(FORMATS)) {
      // First listing: each tool's JSON Schema is derived from valibot on first use, then kept.
      const first = coldMedian(
        5,
        () => createRegistry(makeTools(n)),
        (r: Registry) => r.list().map((t) => format.toolDefinition(t)),
      );
      put(`list ${format.name}, first`, n, fmt(first));
      put(`list ${format.name}, again`, n, fmt(await time(() => registry.list().map((t) => format.toolDefinition(t)))));
    }
    const last = `tool_${n - 1}`;
    put("lookup (get)", n, fmt(await time(() => registry.get(last))));
    const options: ExecuteOptions = { registry };
    const call = { id: "c1", name: last, arguments: '{"id":"x","tags":[],"mode":"fast"}' };
    const one = await executeCall(call, options);
    if (!one.ok) throw new Error(`scale call failed: ${JSON.stringify(one)}`);
    put("executeCall (last tool)", n, fmt(await time(() => executeCall(call, options))));
  }
  return Object.values(rows);
}

const add = defineTool({
  name: "add",
  description: "Add two numbers",
  input: v.object({ a: v.number(), b: v.number() }),
  run: ({ a, b }) => ({ sum: a + b }),
});
const addOptions: ExecuteOptions = { registry: createRegistry([add]) };

async function batchRow(): Promise<Record<string, string | number>> {
  const row: Record<string, string | number> = { what: "batch decode→executeBatch→encode, per call" };
  for (const n of SIZES) {
    const message = {
      role: "assistant",
      content: null,
      tool_calls: Array.from({ length: n }, (_, i) => ({
        id: `call_${i}`,
        type: "function",
        function: { name: "add", arguments: `{"a":${i},"b":1}` },
      })),
    };
    const run = async () => {
      const decoded = openai.decode(message);
      if (!decoded.ok) throw new Error(decoded.message);
      return JSON.stringify(openai.encode(await executeBatch(decoded.calls, addOptions)));
    };
    const out = JSON.parse(await run()) as { messages: Array<{ content: string }> };
    if (out.messages.length !== n || out.messages[n - 1]!.content !== `{"sum":${n}}`)
      throw new Error("batch answer wrong");
    row[`n=${n.toLocaleString("en-US")}`] = fmt((await time(run)) / n);
  }
  return row;
}

const KIB = 1024;
const ARG_SIZES = [
  { label: "1 KiB", bytes: KIB },
  { label: "64 KiB", bytes: 64 * KIB },
  { label: "1 MiB", bytes: 1024 * KIB },
];
const TextInput = v.object({ text: v.string() });
const ItemsInput = v.object({ items: v.array(v.object({ id: v.number(), name: v.string() })) });
const bigTools = createRegistry([
  defineTool({
    name: "text_len",
    description: "Length of a text",
    input: TextInput,
    run: ({ text }) => ({ length: text.length }),
  }),
  defineTool({
    name: "count_items",
    description: "Count records",
    input: ItemsInput,
    run: ({ items }) => ({ count: items.length }),
  }),
]);
// The default argument limit is 1 MiB of JSON text; the 1 MiB payloads carry a little framing on top.
const bigOptions: ExecuteOptions = { registry: bigTools, limits: { maxArgumentBytes: 2 * 1024 * KIB } };

function payload(kind: "text" | "items", bytes: number): string {
  if (kind === "text") return JSON.stringify({ text: "x".repeat(bytes) });
  const item = (i: number) => ({ id: i, name: `item number ${i}` });
  const per = JSON.stringify(item(99_999)).length + 1;
  return JSON.stringify({ items: Array.from({ length: Math.ceil(bytes / per) }, (_, i) => item(i)) });
}

async function argumentRows(): Promise<Array<Record<string, string | number>>> {
  const rows: Array<Record<string, string | number>> = [];
  for (const kind of ["text", "items"] as const) {
    const name = kind === "text" ? "text_len" : "count_items";
    const schema = kind === "text" ? TextInput : ItemsInput;
    const row: Record<string, string | number> = { what: kind === "text" ? "one long string" : "array of {id,name}" };
    for (const size of ARG_SIZES) {
      const args = payload(kind, size.bytes);
      const message = {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_0", type: "function", function: { name, arguments: args } }],
      };
      const viaToolgate = async () => {
        const decoded = openai.decode(message);
        if (!decoded.ok) throw new Error(decoded.message);
        return JSON.stringify(openai.encode([await executeCall(decoded.calls[0]!, bigOptions)]).messages);
      };
      const floor = () => {
        const parsed = v.safeParse(schema, JSON.parse(args));
        if (!parsed.success) throw new Error("floor refused");
        const out =
          "text" in parsed.output ? { length: parsed.output.text.length } : { count: parsed.output.items.length };
        return JSON.stringify([{ role: "tool", tool_call_id: "call_0", content: JSON.stringify(out) }]);
      };
      if ((await viaToolgate()) !== floor())
        throw new Error(`${kind} ${size.label}: toolgate ${await viaToolgate()} ≠ floor ${floor()}`);
      const [f, t] = await interleave(
        [
          { name: "floor", op: floor },
          { name: "toolgate", op: viaToolgate },
        ],
        { roundMs: 40, rounds: 7, warmupRounds: 2 },
      );
      row[size.label] = `${fmt(t!.nsPerOp)} (${(t!.nsPerOp / f!.nsPerOp).toFixed(2)}× floor)`;
    }
    rows.push(row);
  }
  return rows;
}

export async function runScaleBench(): Promise<{
  registry: Array<Record<string, string | number>>;
  args: Array<Record<string, string | number>>;
}> {
  return { registry: [...(await registryRows()), await batchRow()], args: await argumentRows() };
}

export function printScaleReport(report: Awaited<ReturnType<typeof runScaleBench>>): void {
  console.log("Registry size and batch size (time per operation; batch: per call):");
  console.log(table(report.registry));
  console.log("\nArgument size (one call, decode → executeCall → encode; ratio to the floor at the same size):");
  console.log(table(report.args));
}

if (isMain("scale")) {
  printScaleReport(await runScaleBench());
}
