import * as v from "valibot";
import { defineTool, richResult } from "../src";

/** A 24 × 24 PNG gradient: small enough to keep in the source. */
const GRADIENT_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAABgAAAAYCAIAAABvFaqvAAADnUlEQVR42g3MIQJEEQBAwd91Xdd1Xdd13QF0XXlJ13Vd13UHsDsHmO/7EB/yQ33o" +
  "D/NhP9yH/wgf8SN95I/yUT/aR/8YH/NjfeyP83E/3sf3CYRACpRAC4zACpzAC4IgCpIgC4qgCpqgC4ZgCpZgC47gCp74RxIhkRIl0RIjsRIn8ZIg" +
  "iZIkyZIiqZIm6ZIhmZIl2ZIjuZIn/5FCKKRCKbTCKKzCKbwiKKIiKbKiKKqiKbpiKKZiKbbiKK7iqX+kERqpURqtMRqrcRqvCZqoSZqsKZqqaZqu" +
  "GZqpWZqtOZqrefofGYRBGpRBG4zBGpzBG4IhGpIhG4qhGpqhG4ZhGpZhG47hGp75RxZhkRZl0RZjsRZn8ZZgiZZkyZZiqZZm6ZZhmZZl2ZZjuZZn" +
  "/5FDOKRDObTDOKzDObwjOKIjObKjOKqjObpjOKZjObbjOK7juX/kER7pUR7tMR7rcR7vCZ7oSZ7sKZ7qaZ7uGZ7pWZ7tOZ7ref4fBURABlRAB0zA" +
  "BlzAB0IgBlIgB0qgBlqgB0ZgBlZgB07gBl74RxERkREV0RETsREX8ZEQiZEUyZESqZEW6ZERmZEV2ZETuZEX/1FCJGRCJXTCJGzCJXwiJGIiJXKi" +
  "JGqiJXpiJGZiJXbiJG7ipX+UERmZURmdMRmbcRmfCZmYSZmcKZmaaZmeGZmZWZmdOZmbefkfFURBFlRBF0zBFlzBF0IhFlIhF0qhFlqhF0ZhFlZh" +
  "F07hFl75RxVRkRVV0RVTsRVX8ZVQiZVUyZVSqZVW6ZVRmZVV2ZVTuZVX/1FDNGRDNXTDNGzDNXwjNGIjNXKjNGqjNXpjNGZjNXbjNG7jtX/UER3Z" +
  "UR3dMR3bcR3fCZ3YSZ3cKZ3aaZ3eGZ3ZWZ3dOZ3bef0fDcRADtRAD8zADtzAD8IgDtIgD8qgDtqgD8ZgDtZgD87gDt74RxMxkRM10RMzsRM38ZMw" +
  "iZM0yZMyqZM26ZMxmZM12ZMzuZM3/9FCLORCLfTCLOzCLfwiLOIiLfKiLOqiLfpiLOZiLfbiLO7irX+0ERu5URu9MRu7cRu/CZu4SZu8KZu6aZu+" +
  "GZu5WZu9OZu7efsfHcRBHtRBH8zBHtzBH8IhHtIhH8qhHtqhH8ZhHtZhH87hHt75RxdxkRd10RdzsRd38ZdwiZd0yZdyqZd26ZdxmZd12ZdzuZd3" +
  "/9FDPORDPfTDPOzDPfwjPOIjPfKjPOqjPfpjPOZjPfbjPO7jPX4azqPezX06pgAAAABJRU5ErkJggg==";

/** A short sine tone as a WAV file (8 kHz, 8-bit mono), base64. */
function toneWav(hz: number, ms: number): string {
  const rate = 8_000;
  const samples = Math.round((rate * ms) / 1000);
  const bytes = new Uint8Array(44 + samples);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => {
    for (const [i, ch] of [...text].entries()) view.setUint8(at + i, ch.charCodeAt(0));
  };
  ascii(0, "RIFF");
  view.setUint32(4, 36 + samples, true);
  ascii(8, "WAVEfmt ");
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, rate, true);
  view.setUint32(28, rate, true); // bytes per second
  view.setUint16(32, 1, true); // block align
  view.setUint16(34, 8, true); // bits per sample
  ascii(36, "data");
  view.setUint32(40, samples, true);
  for (let i = 0; i < samples; i++) bytes[44 + i] = 128 + Math.round(60 * Math.sin((2 * Math.PI * hz * i) / rate));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Rich content, to see how consoles and chat formats carry it: markdown text, an image, a sound and a
 * link to a resource. The console renders the text as markdown (its render hint).
 */
export default defineTool({
  name: "sample_media",
  description: "Return a short markdown note with an image, a tone and a link (to see how rich results render).",
  input: v.object({
    title: v.optional(
      v.pipe(v.string(), v.minLength(1), v.maxLength(80), v.description("The note's heading")),
      "Sample",
    ),
    hz: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(110), v.maxValue(1_760), v.description("Pitch of the tone, in hertz")),
      440,
    ),
  }),
  policy: { readOnly: true, idempotent: true },
  render: { call: "Media sample “{title}” ({hz} Hz)", result: "markdown" },
  tags: ["demo"],
  run: ({ title, hz }) =>
    richResult([
      {
        type: "text",
        text:
          `# ${title}\n\nA **gradient**, a ${hz} Hz tone and ` +
          `[the MCP specification](https://modelcontextprotocol.io/specification).\n\n` +
          `- image/png, 24 × 24\n- audio/wav, 0.4 s`,
      },
      { type: "image", data: GRADIENT_PNG, mimeType: "image/png" },
      { type: "audio", data: toneWav(hz, 400), mimeType: "audio/wav" },
      {
        type: "resource_link",
        uri: "https://modelcontextprotocol.io/specification",
        name: "MCP specification",
        mimeType: "text/html",
        description: "Where these content types are defined",
      },
    ]),
});
