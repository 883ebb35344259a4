import { afterAll, beforeAll, expect, it } from "vitest";
import { DEMO_KEYS } from "../../../worker/demo/tenant";
import { startDevServer, type DevServer } from "../../servers/wrangler-dev";

/**
 * The demo's slow_report under `wrangler dev` (workerd, real Durable Objects, real sockets): the call
 * answers with its running record before the report is written, its request is then over, and the
 * outcome is read later from the ledger. The report lasts 2 s here (the demo allows up to 600).
 */

let server: DevServer;
beforeAll(async () => {
  server = await startDevServer();
}, 120_000);
afterAll(() => server?.stop());

const headers = { authorization: `Bearer ${DEMO_KEYS.call}`, "content-type": "application/json" };

it("answers slow_report with its running record at once, and GET ?wait= later gives the finished report", async () => {
  const id = `report-${crypto.randomUUID()}`;
  const body = JSON.stringify({
    role: "assistant",
    content: null,
    tool_calls: [{ id, type: "function", function: { name: "slow_report", arguments: '{"seconds":2}' } }],
  });
  const res = await fetch(`${server.url}/v1/calls/openai`, { method: "POST", headers, body });
  expect(res.status).toBe(200);
  const answer = (await res.json()) as {
    messages: { tool_call_id: string; content: string }[];
    calls: { status: string; startedAt: number }[];
  };
  // The request is over before the report could be: its answer is the running record, and the tool
  // message tells the model where the outcome will be.
  expect(answer.calls[0]!.status).toBe("running");
  expect(answer.messages[0]).toMatchObject({
    tool_call_id: id,
    content: expect.stringContaining("runs on, detached from this request"),
  });

  const later = await fetch(`${server.url}/v1/calls/${id}?wait=30`, { headers });
  const { record } = (await later.json()) as {
    record: {
      status: string;
      output: { structured: { seconds: number; startedAt: number; endedAt: number } };
      progress: unknown;
    };
  };
  expect(record.status).toBe("succeeded");
  expect(record.output.structured.seconds).toBe(2);
  expect(record.output.structured.endedAt - record.output.structured.startedAt).toBeGreaterThanOrEqual(2_000);
  expect(record.progress).toMatchObject({ progress: 2, total: 2 });
}, 60_000);
