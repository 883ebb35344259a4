import * as v from "valibot";
import { defineTool, richResult } from "../src";
import { base64, gradientPng } from "./lib/gradient-png";

/** The note's picture: a 24 × 24 gradient, made once. */
let gradient: string | undefined;

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
  return base64(bytes);
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
      { type: "image", data: (gradient ??= gradientPng(24)), mimeType: "image/png" },
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
