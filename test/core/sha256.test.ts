import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashJson } from "../../src/hash";
import { sha256Hex } from "../../src/sha256";

const reference = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("sha256Hex", () => {
  it("gives the FIPS 180-4 digests of the standard messages", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
  });

  it("matches node:crypto at every length around the block and padding edges, and on any text", () => {
    for (let length = 0; length <= 200; length++)
      expect(sha256Hex("é".repeat(length % 3) + "x".repeat(length))).toBe(
        reference("é".repeat(length % 3) + "x".repeat(length)),
      );
    expect(sha256Hex("a".repeat(1_000_000))).toBe(reference("a".repeat(1_000_000)));
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => sha256Hex(text) === reference(text)),
    );
  });

  it("is what hashJson hashes: the canonical JSON's UTF-8 bytes", () => {
    expect(hashJson({ b: 1, a: [2, "ü"] })).toBe(reference('{"a":[2,"ü"],"b":1}'));
  });
});
