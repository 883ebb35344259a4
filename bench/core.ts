/**
 * W1: one OpenAI-format call to add({a,b}); W2: a batch of 100; W3: one call with invalid arguments.
 * Each through the whole pipeline (decode → execute → encode), against floors measured in the same
 * run: the bare floor (JSON.parse + valibot safeParse + the function + JSON.stringify of the tool
 * message); the floor with a timed record of the call; and that record floor reached through a promise
 * the caller awaits, as any promise-returning API is. toolgate answers one call through executeCallNow
 * (the result itself when the call ended synchronously, as it does here) and encodeResult (the tool
 * message, which is what the floors produce), a batch through executeBatch and encode; "toolgate,
 * awaited" is what W1 and W3 measured before: executeCall awaited, then encode's whole `{ messages }`.
 * Targets: ≤ 1.25× the floor with a record; ≤ 1.5× the bare floor.
 */
import * as v from "valibot";
import {
  createRegistry,
  defineTool,
  executeBatch,
  executeCall,
  executeCallNow,
  type CallResult,
  type ExecuteOptions,
} from "../src/index";
import { openai } from "../src/formats/openai";
import { fmt, table } from "./harness";
import { CLOCK, interleave } from "./peers/rounds";
import { isMain } from "./peers/is-main";

const AddInput = v.object({ a: v.number(), b: v.number() });
const addFn = ({ a, b }: { a: number; b: number }) => ({ sum: a + b });
const add = defineTool({ name: "add", description: "Add two numbers", input: AddInput, run: addFn });
const options: ExecuteOptions = { registry: createRegistry([add]) };

const toolCall = (i: number, args: string) => ({
  id: `call_${i}`,
  type: "function" as const,
  function: { name: "add", arguments: args },
});
const single = { role: "assistant", content: null, tool_calls: [toolCall(0, '{"a":2,"b":3}')] };
const invalid = { role: "assistant", content: null, tool_calls: [toolCall(0, '{"a":"2","b":3}')] };
const batch = {
  role: "assistant",
  content: null,
  tool_calls: Array.from({ length: 100 }, (_, i) => toolCall(i, `{"a":${i},"b":3}`)),
};

/** What the record floors keep, so the engine cannot drop the records they build. */
const kept: unknown[] = [];

/**
 * The floor with a record: the floor plus what every recorded call costs at least — two clock reads
 * and a record of the call (id, tool, arguments, validation, status, timings, output or error).
 */
function recordFloorOne(id: string, args: string): string {
  const startedAt = Date.now();
  const input = JSON.parse(args);
  const parsed = v.safeParse(AddInput, input);
  const output = parsed.success ? addFn(parsed.output) : undefined;
  const error = parsed.success ? undefined : { code: "invalid_arguments", message: parsed.issues[0]!.message };
  const record = {
    callId: id,
    tool: "add",
    args: input,
    validation: { ok: parsed.success },
    status: parsed.success ? "succeeded" : "rejected",
    startedAt,
    durationMs: Date.now() - startedAt,
    output,
    error,
  };
  if (kept.push(record) > 1_000) kept.length = 0;
  const content = parsed.success ? JSON.stringify(output) : `Error: ${error!.message}`;
  return JSON.stringify({ role: "tool", tool_call_id: id, content });
}

/** An op reached through a promise its caller awaits: what a promise-returning API costs at least. */
const awaited = async (op: () => string): Promise<string> => await Promise.resolve(op());

/** The floor: what any runtime must do at least for one call. */
function floorOne(id: string, args: string): string {
  const parsed = v.safeParse(AddInput, JSON.parse(args));
  const content = parsed.success ? JSON.stringify(addFn(parsed.output)) : `Error: ${parsed.issues[0]!.message}`;
  return JSON.stringify({ role: "tool", tool_call_id: id, content });
}

function decodeCalls(body: unknown) {
  const decoded = openai.decode(body);
  if (!decoded.ok) throw new Error(decoded.message);
  return decoded.calls;
}

/** The tool message of one result: what the floors produce. */
const toolMessage = (result: CallResult) => JSON.stringify(openai.encodeResult(result));

/** An app answering one tool call: the tool message at once when the call ended synchronously. */
function throughNow(body: unknown): string | Promise<string> {
  const result = executeCallNow(decodeCalls(body)[0]!, options);
  return result instanceof Promise ? result.then(toolMessage) : toolMessage(result);
}

/** What W1 and W3 measured before executeCallNow: executeCall awaited, then the whole `{ messages }` answer. */
async function throughAwaited(body: unknown): Promise<string> {
  return JSON.stringify(openai.encode([await executeCall(decodeCalls(body)[0]!, options)]));
}

async function throughBatch(body: unknown): Promise<string> {
  return JSON.stringify(openai.encode(await executeBatch(decodeCalls(body), options)));
}

export async function check(): Promise<void> {
  for (const through of [
    async (body: unknown) => JSON.parse(await throughNow(body)),
    async (body: unknown) => JSON.parse(await throughAwaited(body)).messages[0],
  ]) {
    const one = await through(single);
    if (one.role !== "tool" || one.tool_call_id !== "call_0" || one.content !== '{"sum":5}')
      throw new Error(`W1 wrong: ${JSON.stringify(one)}`);
    const bad = await through(invalid);
    if (!String(bad.content).includes("invalid_arguments")) throw new Error(`W3 wrong: ${JSON.stringify(bad)}`);
  }
  // The synchronous entry answers these calls without a promise (what the workloads measure).
  if (throughNow(single) instanceof Promise) throw new Error("W1 did not end synchronously");
  const many = JSON.parse(await throughBatch(batch));
  if (many.messages.length !== 100 || many.messages[99].content !== '{"sum":102}') throw new Error("W2 wrong");
}

/** A workload of one call: toolgate and the floors on the message's only call. */
function oneCall(name: string, message: typeof single) {
  const { id, function: fn } = message.tool_calls[0]!;
  return {
    name,
    run: () => throughNow(message),
    awaitedRun: () => throughAwaited(message),
    floor: () => floorOne(id, fn.arguments),
    recordFloor: () => recordFloorOne(id, fn.arguments),
    awaitedFloor: () => awaited(() => recordFloorOne(id, fn.arguments)),
    target: 1.5,
    recordTarget: 1.25,
  };
}

/** The workloads, each with its floors; bench/core-instructions.ts counts instructions for the same ops. */
export const CORE_WORKLOADS = [
  oneCall("W1 single add", single),
  {
    name: "W2 batch of 100",
    // A batch has one entry point, executeBatch: it awaits only calls that did not end synchronously.
    run: () => throughBatch(batch),
    awaitedRun: undefined,
    floor: () => batch.tool_calls.map((c) => floorOne(c.id, c.function.arguments)).join(","),
    recordFloor: () => batch.tool_calls.map((c) => recordFloorOne(c.id, c.function.arguments)).join(","),
    awaitedFloor: () =>
      awaited(() => batch.tool_calls.map((c) => recordFloorOne(c.id, c.function.arguments)).join(",")),
    target: 1.5,
    recordTarget: 1.25,
  },
  oneCall("W3 invalid arguments", invalid),
];

export async function runCoreBench(): Promise<Array<Record<string, string | number>>> {
  await check();
  const rows: Array<Record<string, string | number>> = [];
  for (const w of CORE_WORKLOADS) {
    // Interleaved rounds timed by this process's CPU time (CLOCK=wall for wall time): on a shared machine
    // wall time also counts other processes' turns. Medians over rounds.
    const [floor, recordFloor, awaitedFloor, toolgate, toolgateAwaited] = await interleave(
      [
        { name: "floor", op: w.floor },
        { name: "floor with a record", op: w.recordFloor },
        { name: "floor with a record, awaited", op: w.awaitedFloor },
        { name: "toolgate", op: w.run },
        ...(w.awaitedRun ? [{ name: "toolgate, awaited", op: w.awaitedRun }] : []),
      ],
      { roundMs: 40, rounds: 15, warmupRounds: 3 },
    );
    const ratio = toolgate!.nsPerOp / floor!.nsPerOp;
    const recordRatio = toolgate!.nsPerOp / recordFloor!.nsPerOp;
    rows.push({
      workload: w.name,
      floor: fmt(floor!.nsPerOp),
      "floor + record": fmt(recordFloor!.nsPerOp),
      "… awaited": fmt(awaitedFloor!.nsPerOp),
      toolgate: fmt(toolgate!.nsPerOp),
      "toolgate, awaited": toolgateAwaited ? fmt(toolgateAwaited.nsPerOp) : "—",
      "÷ floor": `${ratio.toFixed(2)}× (≤ ${w.target}×)`,
      "÷ floor + record": `${recordRatio.toFixed(2)}× (≤ ${w.recordTarget}×)`,
      "awaited ÷ … awaited": `${((toolgateAwaited ?? toolgate)!.nsPerOp / awaitedFloor!.nsPerOp).toFixed(2)}×`,
      met: ratio <= w.target && recordRatio <= w.recordTarget ? "yes" : "NO",
      clock: CLOCK,
    });
  }
  return rows;
}

if (isMain("core")) {
  console.log(table(await runCoreBench()));
}
