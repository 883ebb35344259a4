import { describe, expect, it } from "vitest";
import { createMasker, createTextMasker, isSensitiveKey, REDACTED } from "../../src/mask";

const SECRET = "s3cr3t-Value/with+chars é";
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const b64url = (s: string) => Buffer.from(s, "utf8").toString("base64url");

describe("createMasker", () => {
  const mask = createMasker([SECRET, "abc"]);

  it("replaces the raw secret anywhere in strings, keys included", () => {
    expect(mask({ a: `x${SECRET}y`, list: [SECRET], [SECRET]: 1 })).toEqual({
      a: `x${REDACTED}y`,
      list: [REDACTED],
      [REDACTED]: 1,
    });
  });

  it("replaces base64, base64url and URL-encoded forms", () => {
    for (const form of [
      b64(SECRET),
      b64url(SECRET),
      encodeURIComponent(SECRET),
      encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    ]) {
      const masked = mask.text(`echo: ${form} end`);
      expect(masked).toBe(`echo: ${REDACTED} end`);
    }
    expect(mask.text(new URLSearchParams({ q: SECRET }).toString())).toBe(`q=${REDACTED}`);
  });

  it("replaces hex (lower and upper case) and every percent-encoding: all bytes escaped, URI, form", () => {
    const hex = Buffer.from(SECRET, "utf8").toString("hex");
    const everyByte = [...Buffer.from(SECRET, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
    const formEncoded = new URLSearchParams([["", SECRET]]).toString().slice(1);
    for (const form of [
      hex,
      hex.toUpperCase(),
      everyByte,
      everyByte.toUpperCase(),
      encodeURI(SECRET),
      formEncoded,
      formEncoded.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    ]) {
      expect(mask.text(`echo: ${form} end`)).toBe(`echo: ${REDACTED} end`);
    }
    // Inside a longer hex dump too.
    expect(mask.text(`dump ${Buffer.from(`key=${SECRET};`).toString("hex")}`)).toContain(REDACTED);
  });

  it("drops a tail that could be the start of a secret or of one of its forms (text cut by a size cap)", () => {
    const hex = Buffer.from(SECRET, "utf8").toString("hex");
    for (const form of [SECRET, b64(SECRET), encodeURIComponent(SECRET), hex]) {
      for (const cut of [1, 5, form.length - 1])
        expect(mask.withoutPartialTail(`text before ${form.slice(0, cut)}`)).toBe("text before ");
    }
    expect(mask.withoutPartialTail(`whole ${SECRET}`)).toBe(`whole ${SECRET}`);
    expect(mask.withoutPartialTail("nothing to drop.")).toBe("nothing to drop.");
    expect(createMasker([]).withoutPartialTail("s3cr")).toBe("s3cr");
  });

  it("finds the base64 of a secret inside a larger encoded blob (Basic credentials)", () => {
    for (const user of ["u", "us", "use", "user"]) {
      const blob = b64(`${user}:${SECRET}`);
      expect(mask.text(`Basic ${blob}`)).not.toContain(blob.slice(-12));
      expect(mask.text(`Basic ${blob}`)).toContain(REDACTED);
    }
  });

  it("ignores secrets shorter than 4 characters for substring masking", () => {
    expect(mask.text("abcdef")).toBe("abcdef");
  });

  it("redacts values under sensitive keys, whatever the case or separator", () => {
    const input = {
      Authorization: "Bearer x",
      headers: { "X-API-Key": "k", cookie: "c", password: 12, token: null },
      client_secret: { a: 1 },
      apiKey: "k",
      tokens: 5,
      name: "n",
    };
    expect(mask(input)).toEqual({
      Authorization: REDACTED,
      headers: { "X-API-Key": REDACTED, cookie: REDACTED, password: REDACTED, token: null },
      client_secret: REDACTED,
      apiKey: REDACTED,
      tokens: 5,
      name: "n",
    });
  });

  it("returns the same reference when nothing changes and does not mutate the input", () => {
    const value = { a: [1, "two", { b: true }] };
    expect(mask(value)).toBe(value);
    const withSecret = { a: [SECRET] };
    const masked = mask(withSecret);
    expect(withSecret.a[0]).toBe(SECRET);
    expect(masked).not.toBe(withSecret);
  });

  it("without secrets still redacts sensitive keys and leaves strings alone", () => {
    const none = createMasker([]);
    expect(none({ password: "p", text: "password" })).toEqual({ password: REDACTED, text: "password" });
    expect(none.text("anything")).toBe("anything");
  });

  it("treats regex metacharacters in secrets literally", () => {
    const m = createTextMasker(["a.b*c(d)"]);
    expect(m("a.b*c(d) axbbc(d)")).toBe(`${REDACTED} axbbc(d)`);
  });

  it("classifies keys", () => {
    expect(["proxy-authorization", "AWS_SECRET", "refresh_token", "Set-Cookie"].every(isSensitiveKey)).toBe(true);
    expect(["tokens", "max_tokens", "secretary_name", "author"].some(isSensitiveKey)).toBe(false);
    // The shortest sensitive words sit at the length cut-off; shorter keys are never sensitive.
    expect(["Token", "TO-KEN", "t_o_k_e_n", "PASSWD"].every(isSensitiveKey)).toBe(true);
    expect(["a", "id", "key", "pwd", "tok"].some(isSensitiveKey)).toBe(false);
  });

  it("leaves numbers, booleans and plain strings alone without secrets, and shares unchanged values", () => {
    const m = createMasker([]);
    const input = { a: 1, list: [1, true, null, "s", { b: 2 }], nested: { text: "x", ok: false } };
    expect(m(input)).toBe(input);
    const withSecret = createMasker(["hunter22"]);
    expect(withSecret({ list: [1, "pw hunter22"], n: 2 })).toEqual({ list: [1, `pw ${REDACTED}`], n: 2 });
  });
});
