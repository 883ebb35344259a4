import { inflateSync } from "node:zlib";
import { expect, it } from "vitest";
import { gradientPng } from "../../../tools/lib/gradient-png";

/** The chunks of a PNG file, each checked against its CRC-32. */
function chunks(png: Buffer): { type: string; data: Buffer }[] {
  const found = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString("latin1");
    const data = png.subarray(at + 8, at + 8 + length);
    expect(png.readUInt32BE(at + 8 + length), type).toBe(crc32(png.subarray(at + 4, at + 8 + length)));
    found.push({ type, data });
    at += 12 + length;
  }
  return found;
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

it("makes a valid PNG of the gradient sample_media shows: red across, green down, blue 160", () => {
  const png = Buffer.from(gradientPng(24), "base64");
  expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
  const parts = chunks(png);
  expect(parts.map((part) => part.type)).toEqual(["IHDR", "IDAT", "IEND"]);
  expect([...parts[0]!.data]).toEqual([0, 0, 0, 24, 0, 0, 0, 24, 8, 2, 0, 0, 0]);
  // inflateSync checks the zlib stream's Adler-32.
  const raw = inflateSync(parts[1]!.data);
  expect(raw.length).toBe(24 * (1 + 24 * 3));
  const pixel = (x: number, y: number) => [...raw.subarray(y * 73 + 1 + x * 3, y * 73 + 4 + x * 3)];
  expect(pixel(0, 0)).toEqual([0, 0, 160]);
  expect(pixel(12, 1)).toEqual([133, 11, 160]);
  expect(pixel(23, 23)).toEqual([255, 255, 160]);
  expect(raw.filter((_, i) => i % 73 === 0).every((filter) => filter === 0)).toBe(true);
});
