import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";

/**
 * The tenant's body limits, in size and in time, for every route (the API and /mcp alike). The whole
 * body is read here before any route runs: a body over maxBodyBytes answers 413 (by its
 * Content-Length at once, or as it streams without one), and a body that has not arrived in full
 * within bodyTimeoutMs (one trickling a byte at a time, or stalled with no bytes at all) answers 408,
 * so no request holds the Worker open for as long as a client cares to send.
 */
export const bodyLimit = createMiddleware<AppEnv>(async (c, next) => {
  const raw = c.req.raw;
  if (!raw.body) return next();
  const { maxBodyBytes, bodyTimeoutMs } = c.get("tenant").config.limits;
  const length = raw.headers.get("content-length");
  // Only digits declare a length (the runtime frames such a body by it); anything else is streamed and counted.
  const declared = length !== null && /^\d+$/.test(length) && !raw.headers.has("transfer-encoding");
  if (declared && Number(length) > maxBodyBytes) throw tooLarge(maxBodyBytes);
  // A body of a declared length within the limit is read whole by the runtime (no stream reader in
  // JavaScript); one without is read chunk by chunk, counting its size as it comes.
  const body = declared
    ? await readDeclared(raw, maxBodyBytes, bodyTimeoutMs)
    : await readBody(raw.body, maxBodyBytes, bodyTimeoutMs);
  // Routes read the buffered copy (the call routes the bytes themselves, without a second stream);
  // the request's signal (client gone) stays the original's.
  c.req.raw = new Request(raw, { body, signal: raw.signal });
  c.set("bodyBytes", body);
  await next();
});

const utf8 = new TextDecoder();

/**
 * The request body as text: the bytes bodyLimit buffered, decoded as Request.text() would (UTF-8, a
 * BOM dropped, bad bytes replaced), else read here. A call route reads it once, not a second stream.
 */
export function bodyText(c: Context<AppEnv>): Promise<string> | string {
  const bytes = c.get("bodyBytes");
  return bytes === undefined ? c.req.text() : utf8.decode(bytes);
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, "body_too_large", `The request body is larger than the limit of ${maxBytes} bytes.`);
}

/** A promise that rejects with the 408 once timeoutMs has passed, and the function that stops its timer. */
function deadline(timeoutMs: number): { expired: Promise<never>; stop: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new ApiError(408, "body_timeout", `The request body did not arrive in full within ${timeoutMs} ms.`));
    }, timeoutMs);
  });
  return {
    expired,
    stop: () => {
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

/**
 * The body of a request that declared its length, or an ApiError: 408 when it is not all here within
 * timeoutMs (the read left pending ends with the request), 413 past maxBytes.
 */
async function readDeclared(raw: Request, maxBytes: number, timeoutMs: number): Promise<Uint8Array> {
  const { expired, stop } = deadline(timeoutMs);
  const whole = raw.arrayBuffer();
  whole.catch(() => undefined); // once the deadline has answered, its end is nobody's concern
  try {
    const body = new Uint8Array(await Promise.race([whole, expired]));
    if (body.byteLength > maxBytes) throw tooLarge(maxBytes);
    return body;
  } finally {
    stop();
  }
}

/** The whole stream, or an ApiError: 413 past maxBytes, 408 when it is not done within timeoutMs. */
async function readBody(stream: ReadableStream<Uint8Array>, maxBytes: number, timeoutMs: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const { expired, stop } = deadline(timeoutMs);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), expired]);
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw tooLarge(maxBytes);
      chunks.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => undefined); // stop receiving what is left of it
    throw error;
  } finally {
    stop();
  }
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
