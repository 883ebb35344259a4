import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isToolError } from "../../../src/errors";
import { fromCallResult } from "../../../src/adapters/mcp/content";
import { readSse, type SseEvent } from "../../../src/adapters/sse";
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from "../../../src/adapters/upstream";
import { pointerToPath } from "../../../src/schema/json-schema";

/**
 * Decoders of what upstreams send back (the request formats are fuzzed in test/core/formats/index.test.ts):
 * server-sent event streams, MCP tools/call results, Retry-After headers, JSON pointers in issues.
 */

function streamOf(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const at of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, at));
    from = at;
  }
  return new ReadableStream({
    pull(controller) {
      const next = chunks.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
}

async function events(bytes: Uint8Array, cuts: number[]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of readSse(streamOf(bytes, cuts))) out.push(event);
  return out;
}

/** SSE text: fields, comments, blank lines and every line ending, with non-ASCII data. */
const sseLine = fc.oneof(
  fc.string({ maxLength: 12, unit: "grapheme" }).map((text) => `data: ${text.replace(/[\r\n]/g, "")}`),
  fc.string({ maxLength: 12 }).map((text) => `data:${text.replace(/[\r\n]/g, "")}`),
  fc.constantFrom("event: message", "event: ping", "id: 7", "id:", ": a comment", "data", "retry: 10", "", "", "x: y"),
);
const sseText = fc
  .tuple(
    fc.array(sseLine, { maxLength: 20 }),
    fc.array(fc.constantFrom("\n", "\r\n", "\r"), { minLength: 20, maxLength: 20 }),
  )
  .map(([lines, ends]) => lines.map((line, i) => line + ends[i]).join(""));

describe("server-sent events", () => {
  it("decode the same events however the bytes are split, and never throw", async () => {
    await fc.assert(
      fc.asyncProperty(sseText, fc.array(fc.nat(), { maxLength: 8 }), async (text, cuts) => {
        const bytes = new TextEncoder().encode(text);
        const whole = await events(bytes, []);
        expect(await events(bytes, cuts)).toEqual(whole);
        for (const event of whole) expect(typeof event.data === "string" && event.event.length > 0).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("survive arbitrary bytes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat(), { maxLength: 4 }), async (bytes, cuts) => {
        await events(bytes, cuts);
      }),
      { numRuns: 200 },
    );
  });
});

describe("MCP tools/call results", () => {
  const block = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.record(
      {
        type: fc.constantFrom("text", "image", "audio", "resource", "resource_link", "other"),
        text: fc.jsonValue({ maxDepth: 1 }),
        data: fc.jsonValue({ maxDepth: 1 }),
        mimeType: fc.jsonValue({ maxDepth: 1 }),
        uri: fc.jsonValue({ maxDepth: 1 }),
        resource: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: ["type"] },
    ),
  );
  const result = fc.oneof(
    fc.jsonValue(),
    fc.record(
      {
        content: fc.oneof(fc.array(block, { maxLength: 4 }), fc.jsonValue()),
        isError: fc.jsonValue({ maxDepth: 0 }),
        structuredContent: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    ),
  );

  it("become a result or a tool_error, never another throw", () => {
    fc.assert(
      fc.property(result, (value) => {
        try {
          const rich = fromCallResult(value, "remote tool");
          expect(Array.isArray(rich.content)).toBe(true);
        } catch (error) {
          expect(isToolError(error) && error.code).toBe("tool_error");
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("small decoders", () => {
  it("Retry-After: absent or a wait in [0, cap] for any header text", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.nat().map(String),
          fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
        ),
        (text) => {
          const ms = parseRetryAfter(text);
          if (ms !== undefined) expect(ms >= 0 && ms <= MAX_RETRY_AFTER_MS).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("issue paths: any JSON pointer against any value gives a string", () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), (pointer, instance) => {
        expect(typeof pointerToPath(pointer, instance)).toBe("string");
      }),
      { numRuns: 500 },
    );
  });
});
