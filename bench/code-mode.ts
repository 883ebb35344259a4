/**
 * What code mode costs and saves, over HTTP against `wrangler dev` (workerd, real Durable Objects, the
 * Worker Loader), with the demo tenant's tools and `codeMode` on:
 *   latency: p50/p90 of one recorded `add` call; of a code run making no call (the sandbox's start-up
 *            and the run's own record); of a code run making one `add` call.
 *   a chained task, as a scripted model would do it: add 1+2, then +3, +4, +5, +6, each step needing
 *            the last result. Plain calls: one model round trip per call, then the answer; code mode:
 *            one program, then the answer. Counted: round trips, and what is sent to the model (every
 *            turn resends the tool listing and the conversation so far) in o200k_base tokens.
 * Run: node scripts/run-ts.mjs bench/code-mode.ts   (RUNS, default 40)
 */
import { encode } from "gpt-tokenizer";
import { DEMO_CONFIG, DEMO_KEYS } from "../worker/demo/tenant";
import { startDevServer } from "../test/servers/wrangler-dev";

const RUNS = Number(process.env.RUNS ?? 40);
const config = { ...DEMO_CONFIG, codeMode: {} };
const server = await startDevServer({ vars: { TOOLGATE_CONFIG: JSON.stringify(config), TOOLGATE_DEMO: "true" } });
const headers = { authorization: `Bearer ${DEMO_KEYS.call}`, "content-type": "application/json" };
let seq = 0;

interface Answer {
  messages: { tool_call_id: string; content: string }[];
  calls: { status: string }[];
}

async function post(name: string, args: unknown): Promise<{ ms: number; answer: Answer }> {
  const id = `code-bench-${process.pid}-${++seq}`;
  const body = JSON.stringify([{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }]);
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/calls/openai`, { method: "POST", headers, body });
  const answer = (await res.json()) as Answer;
  const ms = performance.now() - started;
  if (answer.calls[0]?.status !== "succeeded") throw new Error(`${name} ended ${JSON.stringify(answer.calls[0])}`);
  return { ms, answer };
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

/** The scripted model's conversation: what each turn sends (listing + messages so far). */
async function chained(listing: string, mode: "plain" | "code") {
  const messages: unknown[] = [{ role: "user", content: "Add 1 and 2, then add 3, 4, 5 and 6 to the running sum." }];
  let sent = 0;
  let trips = 0;
  const turn = () => {
    sent += encode(listing).length + encode(JSON.stringify(messages)).length;
    trips++;
  };
  if (mode === "plain") {
    let sum = 1;
    for (const b of [2, 3, 4, 5, 6]) {
      turn();
      const args = { a: sum, b };
      const call = { id: `c${b}`, type: "function", function: { name: "add", arguments: JSON.stringify(args) } };
      messages.push({ role: "assistant", tool_calls: [call] });
      const { answer } = await post("add", args);
      messages.push({ role: "tool", tool_call_id: call.id, content: answer.messages[0]!.content });
      sum = (JSON.parse(answer.messages[0]!.content) as { sum: number }).sum;
    }
  } else {
    turn();
    const code =
      "let sum = 1;\nfor (const b of [2, 3, 4, 5, 6]) sum = (await tools.add({ a: sum, b })).sum;\nreturn sum;";
    const call = { id: "c1", type: "function", function: { name: "run_code", arguments: JSON.stringify({ code }) } };
    messages.push({ role: "assistant", tool_calls: [call] });
    const { answer } = await post("run_code", { code });
    messages.push({ role: "tool", tool_call_id: call.id, content: answer.messages[0]!.content });
  }
  turn(); // the final answer
  return { trips, sent };
}

try {
  const listing = await (await fetch(`${server.url}/v1/tools/openai`, { headers })).text();
  const plainListing = JSON.stringify(
    (JSON.parse(listing) as { tools: { function: { name: string } }[] }).tools.filter(
      (tool) => tool.function.name !== "run_code",
    ),
  );
  const codeListing = JSON.stringify(
    (JSON.parse(listing) as { tools: { function: { name: string } }[] }).tools.filter(
      (tool) => tool.function.name === "run_code",
    ),
  );
  const plain = await chained(plainListing, "plain");
  const code = await chained(codeListing, "code");
  console.log(`chained task, plain calls: ${plain.trips} round trips, ${plain.sent} tokens sent`);
  console.log(`chained task, code mode:   ${code.trips} round trips, ${code.sent} tokens sent`);
  console.log(`listing: every tool ${encode(plainListing).length} tokens, the code tool ${encode(codeListing).length}`);

  const one: number[] = [];
  const empty: number[] = [];
  const oneCall: number[] = [];
  for (let i = 0; i < RUNS + 5; i++) {
    const a = await post("add", { a: 1, b: 2 });
    const e = await post("run_code", { code: "return 1;" });
    const c = await post("run_code", { code: "return await tools.add({ a: 1, b: 2 });" });
    if (i < 5) continue; // warm-up
    one.push(a.ms);
    empty.push(e.ms);
    oneCall.push(c.ms);
  }
  const row = (name: string, values: number[]) =>
    `${name.padEnd(44)} p50 ${quantile(values, 0.5).toFixed(1).padStart(6)} ms   p90 ${quantile(values, 0.9).toFixed(1).padStart(6)} ms`;
  console.log(row("one add call", one));
  console.log(row("code run, no call (sandbox start-up)", empty));
  console.log(row("code run, one add call", oneCall));
  const bound = quantile(empty, 0.5) + quantile(one, 0.5);
  console.log(`start-up + one call: ${bound.toFixed(1)} ms; one-call run: ${quantile(oneCall, 0.5).toFixed(1)} ms`);
} finally {
  await server.stop();
}
