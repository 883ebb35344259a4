/**
 * toolgate's requests to a connection's provider (metadata, token, revocation endpoints): bounded in
 * time and size, never following a redirect. Errors are ProviderUnreachable naming what went wrong,
 * never a token.
 */

/** Largest answer read from a provider, and how long its request may take. */
export const PROVIDER_BOUNDS = { maxBytes: 64 * 1024, timeoutMs: 10_000 } as const;

/** Why a provider's answer could not be had. */
export class ProviderUnreachable extends Error {}

/** The body's bytes, or ProviderUnreachable past `max` (read in chunks: a huge answer is never held whole). */
async function boundedBody(response: Response, max: number): Promise<ArrayBuffer> {
  if (Number(response.headers.get("content-length") ?? "0") > max)
    throw new ProviderUnreachable(`its answer is over ${max} bytes`);
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const read = await reader?.read();
    if (!read || read.done) break;
    size += read.value.byteLength;
    if (size > max) {
      await reader!.cancel();
      throw new ProviderUnreachable(`its answer is over ${max} bytes`);
    }
    chunks.push(read.value);
  }
  return new Blob(chunks).arrayBuffer();
}

/** fetch within PROVIDER_BOUNDS, the whole (bounded) body held; a redirect answered as it came. */
export async function providerFetch(url: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, {
      ...init,
      redirect: "manual",
      signal: AbortSignal.timeout(PROVIDER_BOUNDS.timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    throw new ProviderUnreachable(
      timedOut ? `no answer within ${PROVIDER_BOUNDS.timeoutMs} ms` : `${new URL(url).host} could not be reached`,
    );
  }
  const redirect = response.status >= 300 && response.status < 400;
  if (redirect) await response.body?.cancel();
  const body = redirect ? null : await boundedBody(response, PROVIDER_BOUNDS.maxBytes);
  return new Response(body, { status: response.status, headers: response.headers });
}

/** Plain http is for local development against a provider on this machine only (as the configuration allows). */
export function isLoopbackHttp(url: URL): boolean {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return (
    url.protocol === "http:" &&
    (host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host))
  );
}
