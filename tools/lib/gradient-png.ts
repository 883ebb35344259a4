/** Bytes as base64 (btoa takes one character per byte). */
export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** A PNG chunk: length, type, data and the CRC-32 of type and data. */
function chunk(type: string, data: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(12 + data.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, data.length);
  for (const [i, ch] of [...type].entries()) bytes[4 + i] = ch.charCodeAt(0);
  bytes.set(data, 8);
  let crc = -1;
  for (const byte of bytes.subarray(4, 8 + data.length)) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  view.setUint32(8 + data.length, ~crc >>> 0);
  return bytes;
}

/**
 * A `size` × `size` RGB PNG, base64: red rising left to right, green top to bottom, blue 160. Made
 * rather than kept as a picture in the source (the Worker's bundle is measured): one stored, that is
 * uncompressed, deflate block, which any PNG reader takes. At most 147 pixels a side (one block).
 */
export function gradientPng(size: number): string {
  const row = 1 + size * 3; // a filter byte (none), then the pixels
  const raw = new Uint8Array(size * row);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      raw.set([Math.round((x * 255) / (size - 1)), Math.round((y * 255) / (size - 1)), 160], y * row + 1 + x * 3);
    }
  }
  // zlib: its header, the stored block (final, its length and the length's complement), Adler-32.
  const zlib = new Uint8Array(11 + raw.length);
  const view = new DataView(zlib.buffer);
  zlib.set([0x78, 0x01, 1]);
  view.setUint16(3, raw.length, true);
  view.setUint16(5, ~raw.length & 0xffff, true);
  zlib.set(raw, 7);
  let a = 1;
  let b = 0;
  for (const byte of raw) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  view.setUint32(7 + raw.length, ((b << 16) | a) >>> 0);
  const header = new Uint8Array(13);
  new DataView(header.buffer).setUint32(0, size);
  new DataView(header.buffer).setUint32(4, size);
  header.set([8, 2], 8); // 8 bits per channel, RGB
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
    chunk("IDAT", zlib),
    chunk("IEND", new Uint8Array()),
  ];
  const png = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  parts.reduce((at, part) => (png.set(part, at), at + part.length), 0);
  return base64(png);
}
