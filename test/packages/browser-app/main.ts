// A browser app of the packed `toolgate`: one tool runs in the page, then a model's batch mixes it with a
// tool of the starter's Worker. The suite (browser.test.ts) sets window.toolgateApi before the page loads.
import { createClient, createRegistry, defineTool, executeCall } from "toolgate";
import * as v from "valibot";

declare global {
  interface Window {
    toolgateApi: { url: string; key: string };
  }
}

const shout = defineTool({
  name: "shout",
  description: "Upper-case a text, in the page.",
  input: v.object({ text: v.pipe(v.string(), v.maxLength(1000)) }),
  output: v.object({ loud: v.string() }),
  run: ({ text }) => ({ loud: text.toUpperCase() }),
});
// One call at a time: its gate is the in-process limiter, a chunk of its own the page loads on first use.
let letGo = () => {};
const held = new Promise<void>((resolve) => (letGo = resolve));
const single = defineTool({
  name: "single",
  description: "Hold the only slot until let go, in the page.",
  input: v.object({}),
  policy: { concurrency: { limit: 1, maxQueue: 0 } },
  run: async () => {
    await held;
    return { done: true };
  },
});
const registry = createRegistry([shout, single]);

/** Two calls of `single` at once: the first holds the slot, the second finds no place in the queue. */
async function gated(): Promise<string[]> {
  const first = executeCall({ id: "call_held", name: "single", arguments: {} }, { registry });
  const second = await executeCall({ id: "call_busy", name: "single", arguments: {} }, { registry });
  letGo();
  return [await first, second].map((result) => (result.ok ? "ok" : result.error.code));
}

async function main(): Promise<unknown> {
  const inPage = await executeCall({ id: "call_page", name: "shout", arguments: { text: "hello" } }, { registry });
  const client = createClient({ baseUrl: window.toolgateApi.url, key: window.toolgateApi.key });
  const modelOutput = [
    { id: "call_local", type: "function", function: { name: "shout", arguments: '{"text":"mixed"}' } },
    { id: "call_edge", type: "function", function: { name: "add", arguments: '{"a":2,"b":40}' } },
  ];
  const mixed = await client.runMixed(modelOutput, { localRegistry: registry, format: "openai" });
  return { inPage, gated: await gated(), mixed };
}

const result = document.querySelector("#result")!;
main().then(
  (value) => (result.textContent = JSON.stringify(value)),
  (error: unknown) => (result.textContent = JSON.stringify({ failed: String(error) })),
);
