import { exports } from "cloudflare:workers";
import { expect, it } from "vitest";
import { BASE, CALL_KEY, json, request } from "../helpers/requests";
import { eventually } from "../../wait";

it("cancels the calls of a client that goes away", async () => {
  const id = `gone-${crypto.randomUUID().slice(0, 8)}`;
  const controller = new AbortController();
  const body = {
    type: "message",
    role: "assistant",
    content: [{ type: "tool_use", id, name: "sleep_pool", input: { ms: 5000 } }],
  };
  const pending = exports.default.fetch(
    new Request(`${BASE}/v1/calls/anthropic`, {
      method: "POST",
      headers: { authorization: `Bearer ${CALL_KEY}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: controller.signal,
    }),
  );
  // Go away once the call is running: an abort that lands before the Worker saw the request leaves
  // nothing to cancel (a fixed delay raced the isolate's first request under load).
  await eventually(async () => (await request(`/v1/calls/${id}`)).status === 200, "the call is recorded as running");
  controller.abort();
  await pending.catch(() => undefined);
  const res = await request(`/v1/calls/${id}?wait=10`);
  const entry = await json(res);
  expect(entry.record.status).toBe("cancelled");
});
