import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolError } from "../../../src/errors";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import { defineTool } from "../../../src/tool";

/**
 * A record's steps (CallRecord.steps): each attempt of a retried call, and the span of an attempt's
 * upstream requests, in ms from the call's start, from a real upstream on 127.0.0.1.
 */

let origin = "";
const seen = new Map<string, number>();
const upstream = createServer((request, response) => {
  // Each path fails its first request (503), then answers.
  const count = (seen.get(request.url!) ?? 0) + 1;
  seen.set(request.url!, count);
  response.writeHead(count === 1 ? 503 : 200, { "content-type": "application/json" });
  response.end('{"ok":true}');
});
beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

/** Fetches `path` `times` times in a row; a 503 fails the attempt (retried). */
const fetcher = defineTool({
  name: "fetcher",
  description: "",
  input: v.object({ path: v.string(), times: v.number() }),
  policy: { readOnly: true, retry: { attempts: 3, baseMs: 1, capMs: 1 } },
  async run({ path, times }, ctx) {
    for (let i = 0; i < times; i++) {
      const response = await ctx.fetch(`${origin}${path}`);
      await response.arrayBuffer();
      if (!response.ok) throw toolError("upstream_error", `status ${response.status}`, { retryable: true });
    }
    return "fetched";
  },
});

const plain = defineTool({
  name: "plain",
  description: "",
  input: v.object({}),
  run: async () => "done",
});

const registry = createRegistry([fetcher, plain]);

describe("a record's steps", () => {
  it("times each attempt of a retried call and its upstream requests, in order, within the run", async () => {
    const result = await executeCall(
      { id: "c_retried", name: "fetcher", arguments: { path: "/a", times: 2 } },
      {
        registry,
      },
    );
    expect(result.ok).toBe(true);
    const { record } = result;
    expect(record.attempts).toBe(2);
    expect(record.steps).toMatchObject([
      { attempt: 1, error: "upstream_error", upstream: { requests: 1 } },
      { attempt: 2, upstream: { requests: 2 } },
    ]);
    const [first, second] = record.steps!;
    expect(second!.error).toBeUndefined();
    // Ordered and inside the call: attempt 2 starts after attempt 1 ends; each upstream span is inside its attempt.
    expect(second!.startMs).toBeGreaterThanOrEqual(first!.startMs + first!.durationMs);
    expect(second!.startMs + second!.durationMs).toBeLessThanOrEqual(record.durationMs);
    for (const step of record.steps!) {
      expect(step.upstream!.startMs).toBeGreaterThanOrEqual(step.startMs);
      expect(step.upstream!.startMs + step.upstream!.durationMs).toBeLessThanOrEqual(step.startMs + step.durationMs);
    }
  });

  it("keeps the upstream span of a call that succeeds at once", async () => {
    seen.set("/b", 1); // already failed once: this call's request is answered
    const result = await executeCall(
      { id: "c_once", name: "fetcher", arguments: { path: "/b", times: 1 } },
      {
        registry,
      },
    );
    expect(result.record.steps).toMatchObject([{ attempt: 1, upstream: { requests: 1 } }]);
  });

  it("has none for a single attempt without upstream requests", async () => {
    const result = await executeCall({ id: "c_plain", name: "plain", arguments: {} }, { registry });
    expect(result.ok).toBe(true);
    expect(result.record).not.toHaveProperty("steps");
  });
});
