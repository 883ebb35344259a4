/**
 * Requests of the identity library to an issuer (its discovery document, its key set): bounded in
 * time and size, never following a redirect (one could downgrade to plain http). Errors are
 * UnreachableIssuer with a detail that names the answer, never a secret.
 */

/** Why an issuer's document could not be had. */
export class UnreachableIssuer extends Error {}

export interface Bounds {
  /** Largest body read. */
  maxBytes: number;
  /** How long the request may take, answer included. */
  timeoutMs: number;
}

/** The body's bytes, or UnreachableIssuer past `max` (read in chunks: a huge answer is never held whole). */
async function boundedBytes(response: Response, max: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > max) throw new UnreachableIssuer(`its answer is over ${max} bytes`);
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new UnreachableIssuer(`its answer is over ${max} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/**
 * Fetches `url` within `bounds` and answers a Response holding the whole (bounded) body, so callers
 * and libraries read it as usual. A redirect is answered as it came (3xx), never followed.
 */
export async function boundedFetch(url: string, init: RequestInit, bounds: Bounds): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(bounds.timeoutMs) });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    throw new UnreachableIssuer(timedOut ? `no answer within ${bounds.timeoutMs} ms` : "it could not be reached");
  }
  const body = response.status >= 300 && response.status < 400 ? new Uint8Array() : undefined;
  if (body) await response.body?.cancel();
  return new Response(body ?? (await boundedBytes(response, bounds.maxBytes)), {
    status: response.status,
    headers: response.headers,
  });
}
