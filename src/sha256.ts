/**
 * SHA-256 (FIPS 180-4), synchronous, for hashJson: Web Crypto's digest is asynchronous, and this
 * small version keeps the Worker's bundle ~2.7 KB (gzip) lighter than a general hashing library.
 * Checked against node:crypto in test/core/sha256.test.ts.
 */

/** The first 32 bits of the fractional parts of the square roots (H) and cube roots (K) of the first primes. */
function fractionBits(count: number, root: number): Uint32Array {
  const out = new Uint32Array(count);
  for (let candidate = 2, found = 0; found < count; candidate++) {
    let prime = true;
    for (let d = 2; d * d <= candidate; d++) if (candidate % d === 0) prime = false;
    if (prime) {
      const value = candidate ** (1 / root);
      out[found++] = (value - Math.floor(value)) * 2 ** 32;
    }
  }
  return out;
}

/** Computed at the first hash, not at import: the Worker's startup runs no code it does not need. */
let constants: { initial: Uint32Array; round: Uint32Array; hex: string[] } | undefined;
const constantsOf = () =>
  (constants ??= {
    initial: fractionBits(8, 2),
    round: fractionBits(64, 3),
    hex: Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0")),
  });
const encoder = new TextEncoder();
const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** Reused between calls: the message schedule (the function never yields, so no call shares it). */
const w = new Uint32Array(64);

/** The SHA-256 of a string's UTF-8 bytes, as 64 lowercase hex characters. */
export function sha256Hex(text: string): string {
  const { initial, round, hex } = constantsOf();
  const bytes = encoder.encode(text);
  const blocks = new Uint8Array(((bytes.length + 8) >> 6) * 64 + 64);
  blocks.set(bytes);
  blocks[bytes.length] = 0x80;
  const end = blocks.length;
  const high = Math.floor(bytes.length / 2 ** 29);
  const low = bytes.length << 3;
  blocks[end - 8] = high >>> 24;
  blocks[end - 7] = high >>> 16;
  blocks[end - 6] = high >>> 8;
  blocks[end - 5] = high;
  blocks[end - 4] = low >>> 24;
  blocks[end - 3] = low >>> 16;
  blocks[end - 2] = low >>> 8;
  blocks[end - 1] = low;
  let h0 = initial[0]!,
    h1 = initial[1]!,
    h2 = initial[2]!,
    h3 = initial[3]!,
    h4 = initial[4]!,
    h5 = initial[5]!,
    h6 = initial[6]!,
    h7 = initial[7]!;
  for (let offset = 0; offset < end; offset += 64) {
    for (let i = 0, j = offset; i < 16; i++, j += 4)
      w[i] = (blocks[j]! << 24) | (blocks[j + 1]! << 16) | (blocks[j + 2]! << 8) | blocks[j + 3]!;
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15]!;
      const y = w[i - 2]!;
      w[i] = w[i - 16]! + (rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3)) + w[i - 7]! + (rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10));
    }
    let a = h0,
      b = h1,
      c = h2,
      d = h3,
      e = h4,
      f = h5,
      g = h6,
      h = h7;
    for (let i = 0; i < 64; i++) {
      const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + round[i]! + w[i]!) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  let digest = "";
  for (const word of [h0, h1, h2, h3, h4, h5, h6, h7])
    digest += hex[word >>> 24]! + hex[(word >>> 16) & 255]! + hex[(word >>> 8) & 255]! + hex[word & 255]!;
  return digest;
}
