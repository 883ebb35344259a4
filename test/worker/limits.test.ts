import { describe, expect, it } from "vitest";
import { json, request, tenantConfig } from "./helpers";

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
    const req = new Request("http://127.0.0.1/v1/calls", { method: "POST", body: chunked(2 * MiB), duplex: "half" } as RequestInit);
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
    expect((await json(format)).error.message).toMatch(/Unknown format "klingon"\. Known formats: openai, openai-responses, anthropic, gemini, mcp/);
  });
});
