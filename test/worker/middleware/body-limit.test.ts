import { describe, expect, it } from "vitest";
import { json, request, tenantConfig } from "../helpers/requests";

const MiB = 1024 * 1024;

/** A body streamed in chunks with no Content-Length, the way a chunked upload arrives. */
function chunked(totalBytes: number, chunkBytes = 64 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= totalBytes) return controller.close();
      const size = Math.min(chunkBytes, totalBytes - sent);
      controller.enqueue(new Uint8Array(size).fill(0x20));
      sent += size;
    },
  });
}

describe("body size limit", () => {
  it("refuses a body over 1 MiB by its Content-Length: 413", async () => {
    const res = await request("/v1/calls/openai", { body: " ".repeat(MiB + 1) });
    expect(res.status).toBe(413);
    expect(await json(res)).toEqual({
      error: { code: "body_too_large", message: `The request body is larger than the limit of ${MiB} bytes.` },
    });
  });

  it("refuses a chunked body without Content-Length once it passes the limit: 413", async () => {
    const req = new Request("http://127.0.0.1/v1/calls", {
      method: "POST",
      body: chunked(2 * MiB),
      duplex: "half",
    } as RequestInit);
    expect(req.headers.has("content-length")).toBe(false);
    await req.body?.cancel();
    const res = await request("/v1/calls", { body: chunked(2 * MiB) });
    expect(res.status).toBe(413);
    expect((await json(res)).error.code).toBe("body_too_large");
  });

  it("passes a chunked body under the limit on to the route", async () => {
    const res = await request("/v1/calls", { body: chunked(MiB - 10) });
    // The route read the whole (blank, so not JSON) body: the limit let it through intact.
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe("invalid_body");
  });

  it("uses the tenant's own limit", async () => {
    const config = tenantConfig({ limits: { maxBodyBytes: 2048 } });
    const over = await request("/v1/calls", { body: chunked(4096, 512), env: { TOOLGATE_CONFIG: config } });
    expect(over.status).toBe(413);
    expect((await json(over)).error.message).toMatch(/limit of 2048 bytes/);
    const under = await request("/v1/calls", { body: "x".repeat(2000), env: { TOOLGATE_CONFIG: config } });
    expect((await json(under)).error.code).toBe("invalid_body");
  });
});

/** A body that sends one byte every `everyMs` (forever, until cancelled); counts what it sent. */
function trickle(everyMs: number): { body: ReadableStream<Uint8Array>; sent: () => number; cancelled: () => boolean } {
  let sent = 0;
  let cancelled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      return new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          sent++;
          controller.enqueue(new Uint8Array([0x20]));
          resolve();
        }, everyMs);
      });
    },
    cancel() {
      cancelled = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  });
  return { body, sent: () => sent, cancelled: () => cancelled };
}

describe("body time limit", () => {
  const TIMEOUT_MS = 1_000;
  const env = { TOOLGATE_CONFIG: tenantConfig({ limits: { bodyTimeoutMs: TIMEOUT_MS } }) };

  it("answers 408 body_timeout to a body trickling in one byte every 500 ms, after the tenant's deadline", async () => {
    const upload = trickle(500);
    const started = Date.now();
    const res = await request("/v1/calls/openai", { body: upload.body, env });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(408);
    expect(await json(res)).toEqual({
      error: { code: "body_timeout", message: `The request body did not arrive in full within ${TIMEOUT_MS} ms.` },
    });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1_500);
    expect(upload.sent()).toBeGreaterThanOrEqual(1); // it was trickling, not stalled
    expect(upload.cancelled()).toBe(true); // and the Worker stopped reading it
  });

  it("answers 408 to a body that stalls with no bytes at all, on /mcp and on the call routes alike", async () => {
    for (const path of ["/mcp", "/v1/calls", "/v1/calls/anything/cancel"]) {
      const res = await request(path, {
        body: new ReadableStream<Uint8Array>(),
        env,
        headers: { accept: "application/json, text/event-stream" },
      });
      expect({ path, status: res.status, code: (await json(res)).error.code }).toEqual({
        path,
        status: 408,
        code: "body_timeout",
      });
    }
  });

  it("lets a slow body through that ends within the deadline", async () => {
    const body =
      '{"role":"assistant","content":null,"tool_calls":[{"id":"t1","type":"function",' +
      '"function":{"name":"add","arguments":"{\\"a\\":1,\\"b\\":2}"}}]}';
    const bytes = new TextEncoder().encode(body);
    const parts = [bytes.slice(0, 20), bytes.slice(20, 60), bytes.slice(60)];
    const slow = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const part = parts.shift();
        if (part) controller.enqueue(part);
        else controller.close();
      },
    });
    const res = await request("/v1/calls/openai", { body: slow, env });
    expect(res.status).toBe(200);
    expect((await json(res)).messages[0].content).toBe('{"sum":3}');
  });

  it("decodes the buffered body as UTF-8 as Request.text() would: a leading BOM dropped, a character split across chunks whole", async () => {
    // A tool name the tenant lacks comes back in the error: it shows what the route decoded.
    const name = "héllo✓𝄞";
    const body =
      `\uFEFF{"role":"assistant","content":null,"tool_calls":[{"id":"u1","type":"function",` +
      `"function":{"name":"${name}","arguments":"{}"}}]}`;
    const bytes = new TextEncoder().encode(body);
    const cut = bytes.indexOf(0xf0) + 2; // inside the four bytes of 𝄞
    const parts = [bytes.slice(0, 5), bytes.slice(5, cut), bytes.slice(cut)];
    const split = new ReadableStream<Uint8Array>({
      pull(controller) {
        const part = parts.shift();
        if (part) controller.enqueue(part);
        else controller.close();
      },
    });
    const res = await request("/v1/calls/openai", { body: split, env });
    expect(res.status).toBe(200);
    expect((await json(res)).messages[0].content).toContain(`Unknown tool "${name}"`);
  });

  it("is checked in the tenant configuration with a readable error", async () => {
    const res = await request("/v1/whoami", {
      env: { TOOLGATE_CONFIG: tenantConfig({ limits: { bodyTimeoutMs: 5 } }) },
    });
    expect(res.status).toBe(500);
    expect(await json(res)).toEqual({
      error: {
        code: "config_invalid",
        message: "TOOLGATE_CONFIG is invalid: limits.bodyTimeoutMs: must be at least 100",
      },
    });
  });
});

describe("malformed requests", () => {
  it("answers 400 for a body that is not JSON", async () => {
    const res = await request("/v1/calls", { body: "{not json" });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({ error: { code: "invalid_body", message: "The request body is not JSON." } });
  });

  it("answers JSON 404 for an unknown route and an unknown format", async () => {
    const route = await request("/v2/nothing", { key: null });
    expect(route.status).toBe(404);
    expect((await json(route)).error.code).toBe("not_found");
    const format = await request("/v1/tools/klingon");
    expect(format.status).toBe(404);
    expect((await json(format)).error.message).toMatch(
      /Unknown format "klingon"\. Known formats: openai, openai-responses, anthropic, gemini, mcp/,
    );
  });
});
