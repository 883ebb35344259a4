import type { JsonValue } from "./json";

export const REDACTED = "[redacted]";

/**
 * Secrets shorter than this are not masked as substrings: replacing every "abc" or "42" in all
 * output would wreck records and responses while protecting nothing (a 3-character secret is
 * guessable anyway). Values under sensitive keys are still redacted whatever their length.
 */
export const MIN_SECRET_LENGTH = 4;

/** Encoded forms shorter than this are not matched: too likely to occur by chance. */
const MIN_FORM_LENGTH = 6;

/** Keys (lower-cased, without "-" and "_") whose values are always redacted. */
const SENSITIVE_KEYS = new Set([
  "authorization",
  "proxyauthorization",
  "password",
  "passwd",
  "apikey",
  "xapikey",
  "token",
  "secret",
  "cookie",
  "setcookie",
  "privatekey",
  "credentials",
  "sessionid",
]);
const SENSITIVE_SUFFIXES = [
  "password",
  "secret",
  "apikey",
  "accesstoken",
  "authtoken",
  "refreshtoken",
  "idtoken",
  "privatekey",
];

// Keys repeat across calls ("a", "text", "content" …): remember the verdict instead of re-normalising.
const keyVerdicts = new Map<string, boolean>();
const MAX_REMEMBERED_KEYS = 4096;

/** The shortest sensitive word ("token"); removing "-"/"_" only shortens a key, so shorter keys are safe. */
const MIN_SENSITIVE_LENGTH = 5;

export function isSensitiveKey(key: string): boolean {
  // Most keys ("a", "id", "text", "type") are short: answer without a lookup.
  if (key.length < MIN_SENSITIVE_LENGTH) return false;
  const known = keyVerdicts.get(key);
  if (known !== undefined) return known;
  const k = key.toLowerCase().replace(/[-_]/g, "");
  const verdict = SENSITIVE_KEYS.has(k) || SENSITIVE_SUFFIXES.some((suffix) => k.endsWith(suffix));
  if (keyVerdicts.size >= MAX_REMEMBERED_KEYS) keyVerdicts.clear();
  keyVerdicts.set(key, verdict);
  return verdict;
}

export interface Masker {
  /** A masked copy of a JSON value (the same reference when nothing needed masking). */
  (value: JsonValue): JsonValue;
  /** The string form: secrets and their encodings replaced in free text. */
  text(value: string): string;
  /**
   * Text read up to a size cap ends where the cap cut it, before any masking: that end may hold the
   * first characters of a secret (or of one of its forms), which masking cannot recognise. This drops
   * such a tail. Mask everything else first, then cut: a cut made after masking cannot split a secret.
   */
  withoutPartialTail(value: string): string;
}

function toBinary(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += String.fromCharCode(b);
  return out;
}

/**
 * Base64 of the secret at each of the three byte alignments, keeping only the characters that
 * depend on the secret alone: so the secret is found inside a larger encoded blob too (for
 * example "user:secret" in a Basic credential an upstream echoes back).
 */
function base64Forms(bytes: Uint8Array): string[] {
  const forms: string[] = [btoa(toBinary(bytes))];
  for (let k = 0; k < 3; k++) {
    const padded = new Uint8Array(k + bytes.length);
    padded.set(bytes, k);
    const encoded = btoa(toBinary(padded));
    const start = Math.ceil((8 * k) / 6);
    const end = Math.floor((8 * (k + bytes.length)) / 6);
    forms.push(encoded.slice(start, end));
  }
  const urlSafe = forms.map((f) => f.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""));
  return [...forms, ...urlSafe];
}

const lowerEscapes = (text: string) => text.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

/** Percent-encodings as URLs and forms write them: component, URI, form (+ for space), and every byte escaped. */
function percentForms(secret: string, bytes: Uint8Array): string[] {
  const component = encodeURIComponent(secret);
  const form = new URLSearchParams([["", secret]]).toString().slice(1);
  let everyByte = "";
  for (const b of bytes) everyByte += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  const forms = [component, component.replace(/%20/g, "+"), encodeURI(secret), form, everyByte];
  return [...forms, ...forms.map(lowerEscapes)];
}

function hexForms(bytes: Uint8Array): string[] {
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return [hex, hex.toUpperCase()];
}

/**
 * Every form of a secret to look for: raw, base64 (+url-safe, at every alignment), percent-encoded
 * (component, URI, form, every byte; upper and lower case escapes) and hex (lower and upper case).
 */
function secretForms(secret: string): string[] {
  const bytes = new TextEncoder().encode(secret);
  const forms = new Set<string>([secret, ...percentForms(secret, bytes), ...hexForms(bytes), ...base64Forms(bytes)]);
  return [...forms].filter((form) => form === secret || form.length >= MIN_FORM_LENGTH);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Every form of every secret worth masking, longest first (so a full form wins over a shorter form that is its prefix).
 */
function allForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret === "string" && secret.length >= MIN_SECRET_LENGTH)
      for (const f of secretForms(secret)) forms.add(f);
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** How many characters at the end of text are the start (not the whole) of some form. */
function partialTailLength(text: string, forms: readonly string[]): number {
  let longest = 0;
  for (const form of forms) {
    for (let k = Math.min(form.length - 1, text.length); k > longest; k--) {
      if (text.endsWith(form.slice(0, k))) {
        longest = k;
        break;
      }
    }
  }
  return longest;
}

/**
 * A masker for a tenant's secret values. Applied to everything leaving the pipeline (records,
 * events, logs, errors, responses). Without secrets it only redacts sensitive keys and allocates
 * nothing when there is nothing to redact, since it runs on every call.
 */
export function createMasker(secrets: readonly string[]): Masker {
  const forms = allForms(secrets);
  const pattern = forms.length === 0 ? undefined : new RegExp(forms.map(escapeRegExp).join("|"), "g");
  const text = pattern ? (value: string) => value.replace(pattern, REDACTED) : (value: string) => value;

  // Numbers, booleans and null never change; strings only when there are secrets to look for.
  // Skipping the call for them matters: this runs on every call's arguments and output.
  const needsWalk = (item: JsonValue) =>
    typeof item === "object" ? item !== null : pattern !== undefined && typeof item === "string";

  const walk = (value: JsonValue): JsonValue => {
    if (typeof value === "string") return pattern ? text(value) : value;
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) {
      let copy: JsonValue[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item = value[i] as JsonValue;
        if (!needsWalk(item)) continue;
        const masked = walk(item);
        if (masked !== item) (copy ??= value.slice())[i] = masked;
      }
      return copy ?? value;
    }
    let copy: { [key: string]: JsonValue } | undefined;
    for (const key of Object.keys(value)) {
      const item = value[key] as JsonValue;
      const maskedKey = pattern ? text(key) : key;
      const masked = item === null ? item : isSensitiveKey(key) ? REDACTED : needsWalk(item) ? walk(item) : item;
      if (masked !== item || maskedKey !== key) {
        copy ??= { ...value };
        if (maskedKey !== key) delete copy[key];
        copy[maskedKey] = masked;
      }
    }
    return copy ?? value;
  };

  const masker = walk as Masker;
  masker.text = text;
  masker.withoutPartialTail = (value) => value.slice(0, value.length - partialTailLength(value, forms));
  return masker;
}

/** Just the string form, for headers, messages and excerpts. */
export function createTextMasker(secrets: readonly string[]): (value: string) => string {
  return createMasker(secrets).text;
}
