/**
 * Unpadded base64url (RFC 4648 §5), one spelling per value: what session ids (v2025/session.ts), the
 * call ids derived from them and 2026 request states (v2026/request-state.ts) are written in.
 */

/** The bytes as unpadded base64url text. */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The bytes of unpadded base64url text written as toBase64Url writes them, else undefined. atob alone
 * would also take other spellings of the same bytes (non-zero unused bits in the last character), so
 * the bytes are encoded again and must give the text back: one spelling per value.
 */
export function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
  return toBase64Url(bytes) === text ? bytes : undefined;
}
