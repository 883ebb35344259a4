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
const registry = createRegistry([shout]);

async function main(): Promise<unknown> {
  const inPage = await executeCall({ id: "call_page", name: "shout", arguments: { text: "hello" } }, { registry });
  const client = createClient({ baseUrl: window.toolgateApi.url, key: window.toolgateApi.key });
  const modelOutput = [
    { id: "call_local", type: "function", function: { name: "shout", arguments: '{"text":"mixed"}' } },
    { id: "call_edge", type: "function", function: { name: "add", arguments: '{"a":2,"b":40}' } },
  ];
  const mixed = await client.runMixed(modelOutput, { localRegistry: registry, format: "openai" });
  return { inPage, mixed };
}

const result = document.querySelector("#result")!;
main().then(
  (value) => (result.textContent = JSON.stringify(value)),
  (error: unknown) => (result.textContent = JSON.stringify({ failed: String(error) })),
);
