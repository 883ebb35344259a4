import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import { sha256Hex } from "../keys/secret";

/**
 * What the console's consent page shows for a pending authorization, kept beside the library's own
 * transaction (which holds the request itself, sealed, and is opened only by the approval). Under
 * the hash of the handle, for as long as the library keeps the transaction.
 */
const PREFIX = "toolgate-consent:";
const TTL_SECONDS = 600;

/** The library's description, and the protected resource (RFC 8707) the grant will be for. */
export interface PendingConsent extends ConsentDescription {
  resource?: string;
}

export async function saveConsent(kv: KVNamespace, handle: string, description: PendingConsent): Promise<void> {
  await kv.put(`${PREFIX}${await sha256Hex(handle)}`, JSON.stringify(description), { expirationTtl: TTL_SECONDS });
}

export async function readConsent(kv: KVNamespace, handle: string): Promise<PendingConsent | null> {
  return kv.get<PendingConsent>(`${PREFIX}${await sha256Hex(handle)}`, { type: "json" });
}

export async function dropConsent(kv: KVNamespace, handle: string): Promise<void> {
  await kv.delete(`${PREFIX}${await sha256Hex(handle)}`);
}
