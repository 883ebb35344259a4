import { cutText } from "../budget";
import { toolError } from "../errors";
import type { JsonValue } from "../json";
import type { Masker } from "../mask";
import { richResult, type RichResult } from "../tool";
import { parseRetryAfter, readCapped } from "./upstream";

export const DEFAULT_MAX_RESPONSE_BYTES = 1_048_576;
const EXCERPT_CHARS = 500;

const isJson = (type: string) => /^application\/([\w.+-]+\+)?json\b/i.test(type) || /^text\/json\b/i.test(type);
const isText = (type: string) =>
  type === "" ||
  /^text\//i.test(type) ||
  /^application\/([\w.+-]+\+)?(xml|javascript|x-www-form-urlencoded|yaml|x-yaml|graphql)\b/i.test(type);

/** Statuses worth trying again: the same request may succeed later. */
const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * The start of an error body, masked before it is cut: a cut made first could end inside a secret,
 * leaving a prefix that masking no longer recognises. The read itself stops at a byte cap, so a tail
 * that may be the start of a secret is dropped; whitespace is collapsed between two maskings (a
 * secret holding whitespace is found before, one that collapsing forms is found after).
 */
function maskedExcerpt(bytes: Uint8Array, truncated: boolean, mask: Masker): string {
  const read = new TextDecoder().decode(bytes);
  const whole = truncated ? mask.withoutPartialTail(read) : read;
  const text = mask.text(mask.text(whole).replace(/\s+/g, " ")).trim();
  return cutText(text, EXCERPT_CHARS);
}

/** A non-2xx answer as an upstream_error a model can read: status, reason and a masked excerpt. */
export async function upstreamFailure(response: Response, mask: Masker, label: string): Promise<Error> {
  const { bytes, truncated } = await readCapped(response, EXCERPT_CHARS * 4).catch(() => ({
    bytes: new Uint8Array(0),
    truncated: false,
  }));
  const text = maskedExcerpt(bytes, truncated, mask);
  const excerpt = text ? `: ${text}` : "";
  const retryAfterMs =
    response.status === 429 || response.status === 503
      ? parseRetryAfter(response.headers.get("retry-after"))
      : undefined;
  const wait = retryAfterMs === undefined ? "" : ` (retry after ${Math.ceil(retryAfterMs / 1000)} s)`;
  return toolError("upstream_error", `${label} answered HTTP ${response.status}${wait}${excerpt}`, {
    status: response.status,
    retryable: RETRYABLE_STATUS.has(response.status),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * A 2xx answer as a tool result: JSON → structured output plus its text; text types → text;
 * images → image content; other binary → a short description. Bodies beyond maxBytes are cut and
 * the result is flagged truncated (a cut JSON document is returned as text, since it no longer parses).
 * The pipeline masks the result; the cut here comes before that, so a cut text loses any tail that
 * may be the start of a secret.
 */
export async function toToolResult(response: Response, maxBytes: number, mask: Masker): Promise<RichResult> {
  const type = (response.headers.get("content-type") ?? "").trim();
  const { bytes, truncated } = await readCapped(response, maxBytes);
  const flag = { truncated };
  if (bytes.byteLength === 0) return richResult([{ type: "text", text: `(empty response, HTTP ${response.status})` }]);
  if (/^image\//i.test(type) && !truncated) {
    return richResult([{ type: "image", data: toBase64(bytes), mimeType: type.split(";")[0] as string }]);
  }
  if (!isJson(type) && !isText(type)) {
    const note = truncated ? ` (more than ${maxBytes} bytes)` : ` (${bytes.byteLength} bytes)`;
    return richResult([{ type: "text", text: `(binary response: ${type || "unknown type"}${note})` }], undefined, flag);
  }
  const text = new TextDecoder().decode(bytes);
  if (isJson(type) && !truncated) {
    try {
      const value = JSON.parse(text) as JsonValue;
      return richResult([{ type: "text", text: JSON.stringify(value) }], value);
    } catch {
      // Mislabelled: fall through and return the text as is.
    }
  }
  if (!truncated) return richResult([{ type: "text", text }]);
  return richResult(
    [{ type: "text", text: `${mask.withoutPartialTail(text)}\n[response truncated at ${maxBytes} bytes]` }],
    undefined,
    flag,
  );
}
