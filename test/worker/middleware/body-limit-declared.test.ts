import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../../worker/env";
import type { ApiError } from "../../../worker/errors";
import { Hono } from "../../../worker/hono-lazy";
import { bodyLimit } from "../../../worker/middleware/body-limit";
import type { Tenant } from "../../../worker/tenant/tenant";

/** How the body limit reads a body (worker/middleware/body-limit.ts): whole when its length is declared. */
function appWithLimit(maxBodyBytes: number) {
  const tenant = { config: { limits: { maxBodyBytes, bodyTimeoutMs: 5_000 } } } as unknown as Tenant;
  return new Hono<AppEnv>()
    .use(async (c, next) => {
      c.set("tenant", tenant);
      await next();
    })
    .use(bodyLimit)
    .post("/", async (c) => c.json({ bytes: c.get("bodyBytes")?.byteLength, text: await c.req.text() }))
    .onError((error, c) => c.json({ code: (error as ApiError).code }, (error as ApiError).status));
}

/** Counts the stream readers JavaScript takes while `run` runs. */
async function readersDuring<T>(run: () => Promise<T>): Promise<{ result: T; readers: number }> {
  const getReader = ReadableStream.prototype.getReader;
  let readers = 0;
  ReadableStream.prototype.getReader = function (this: ReadableStream, ...args: Parameters<typeof getReader>) {
    readers++;
    return getReader.apply(this, args);
  } as typeof getReader;
  try {
    return { result: await run(), readers };
  } finally {
    ReadableStream.prototype.getReader = getReader;
  }
}

describe("the body limit", () => {
  it("reads a body of declared length whole, with no stream reader, and routes still read it", async () => {
    const app = appWithLimit(100);
    const { result, readers } = await readersDuring(async () => {
      const res = await app.request("/", { method: "POST", headers: { "content-length": "11" }, body: "hello world" });
      return { status: res.status, body: await res.json() };
    });
    expect(result).toEqual({ status: 200, body: { bytes: 11, text: "hello world" } });
    expect(readers).toBe(0);
  });

  it("reads a body without a declared length chunk by chunk, and refuses one past the limit", async () => {
    const app = appWithLimit(8);
    const stream = (text: string) => new Blob([text]).stream();
    const { result, readers } = await readersDuring(async () => {
      const ok = await app.request("/", { method: "POST", body: stream("12345678") });
      const over = await app.request("/", { method: "POST", body: stream("123456789") });
      return { ok: [ok.status, await ok.json()], over: over.status };
    });
    expect(result).toEqual({ ok: [200, { bytes: 8, text: "12345678" }], over: 413 });
    expect(readers).toBeGreaterThanOrEqual(2);
  });

  it("counts a body whose Content-Length is not a number as it streams, and refuses one past the limit", async () => {
    const app = appWithLimit(8);
    const { result, readers } = await readersDuring(async () => {
      const over = await app.request("/", {
        method: "POST",
        headers: { "content-length": "abc" },
        body: new Blob(["123456789"]).stream(),
      });
      return over.status;
    });
    expect(result).toBe(413);
    expect(readers).toBeGreaterThanOrEqual(1);
  });
});
