import { expect, it } from "vitest";
import { json, request } from "../helpers/requests";
import { uid } from "../helpers/ledger";

const call = (id: string, a: number) => ({
  id,
  type: "function",
  function: { name: "add", arguments: JSON.stringify({ a, b: 1 }) },
});
const body = (...calls: unknown[]) => ({ role: "assistant", content: null, tool_calls: calls });

it("a single call reusing an id with other arguments answers 409; in a batch it is one result in a 200", async () => {
  const id = `conflict-${uid()}`;
  const first = await request("/v1/calls/openai", { body: body(call(id, 1)) });
  expect(first.status).toBe(200);

  const lone = await request("/v1/calls/openai", { body: body(call(id, 2)) });
  expect(lone.status).toBe(409);
  const answer = await json(lone);
  expect(answer.messages[0]).toMatchObject({ role: "tool", tool_call_id: id });
  expect(answer.messages[0].content).toContain("conflict");

  const batch = await request("/v1/calls/openai", { body: body(call(id, 3), call(`other-${uid()}`, 4)) });
  expect(batch.status).toBe(200);
  const both = await json(batch);
  expect(both.calls.map((r: { status: string }) => r.status)).toEqual(["rejected", "succeeded"]);

  // The same id and arguments again is a replay, not a conflict.
  const again = await request("/v1/calls/openai", { body: body(call(id, 1)) });
  expect(again.status).toBe(200);
  expect((await json(again)).calls[0]).toMatchObject({ replay: true, status: "succeeded" });
});
