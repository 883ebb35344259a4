/**
 * Tokens at rest: AES-256-GCM under a key derived with HKDF-SHA-256 from the tenant's connections
 * secret (the Worker secret TOOLGATE_CONNECTIONS_SECRET), bound by HKDF's info to the tenant, the user
 * and the connection, so a sealed row copied to another place does not open. A sealed value is
 * `v1.<key id>.<iv>.<ciphertext>` (base64url); the key id (8 characters of the secret's SHA-256) says
 * which secret sealed it, so after a rotation the previous secret still opens old rows.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
function fromB64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Which secret: 8 base64url characters of its SHA-256 (no secret shows from it). */
export async function keyId(secret: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(`toolgate/connections-key-id\n${secret}`));
  return b64url(new Uint8Array(digest)).slice(0, 8);
}

async function aesKey(secret: string, info: string): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: encoder.encode("toolgate/connections/v1"), info: encoder.encode(info) },
    base,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** `value` as JSON, sealed under `secret` for `info` (what it belongs to). */
export async function seal(secret: string, info: string, value: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = encoder.encode(JSON.stringify(value));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await aesKey(secret, info), plain);
  return `v1.${await keyId(secret)}.${b64url(iv)}.${b64url(new Uint8Array(sealed))}`;
}

/**
 * The value sealed for `info`, opened with whichever of `secrets` sealed it (current first); `stale` when
 * that was not the current one (the caller seals it again). Undefined when none opens it: another
 * secret, another place, or tampered.
 */
export async function open<T>(
  secrets: readonly string[],
  info: string,
  sealed: string,
): Promise<{ value: T; stale: boolean } | undefined> {
  const [version, id, iv, body] = sealed.split(".");
  if (version !== "v1" || !id || !iv || !body) return undefined;
  for (const [index, secret] of secrets.entries()) {
    if ((await keyId(secret)) !== id) continue;
    try {
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: fromB64url(iv) },
        await aesKey(secret, info),
        fromB64url(body),
      );
      return { value: JSON.parse(decoder.decode(plain)) as T, stale: index > 0 };
    } catch {
      return undefined;
    }
  }
  return undefined;
}
