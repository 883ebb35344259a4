import type { ClientInfo, ConsentDescription } from "@cloudflare/workers-oauth-provider";

/**
 * Bounds on what an OAuth client says about itself — a dynamic registration (RFC 7591) or a client ID
 * metadata document — checked before the library stores any of it or the consent page shows it:
 * every field the library keeps, in count and length, and a registration as a whole. Generous for
 * real clients (a name, a few redirect URIs), small enough that an open endpoint cannot fill the store.
 */
export const CLIENT_BOUNDS = {
  /** A registration request's JSON, in bytes (the library's own limit for a metadata document is 5 KiB). */
  documentBytes: 16 * 1024,
  /** client_name and its language variants, in characters. */
  nameChars: 200,
  /** Each URI (redirect URIs, client_uri, logo_uri, policy_uri, tos_uri, jwks_uri, a document's client_id). */
  uriChars: 2048,
  redirectUris: 16,
  contacts: 8,
  /** An e-mail address's longest form. */
  contactChars: 320,
  /** grant_types, response_types and the token endpoint's methods and algorithms: entries of each list. */
  listEntries: 8,
  /** Each of their entries, and token_endpoint_auth_method and token_endpoint_auth_signing_alg. */
  wordChars: 128,
  /** Language variants (client_name#fr, logo_uri#de …), all fields together. */
  variants: 16,
  /** A variant's language tag (RFC 5646's longest tag to support). */
  tagChars: 35,
} as const;

const B = CLIENT_BOUNDS;

/** The strings the library keeps, by their RFC 7591 names: most characters each. */
const TEXT: Readonly<Record<string, number>> = {
  client_id: B.uriChars,
  client_name: B.nameChars,
  client_uri: B.uriChars,
  logo_uri: B.uriChars,
  policy_uri: B.uriChars,
  tos_uri: B.uriChars,
  jwks_uri: B.uriChars,
  token_endpoint_auth_method: B.wordChars,
  token_endpoint_auth_signing_alg: B.wordChars,
};

/** The lists the library keeps: most entries, and most characters each. */
const LISTS: Readonly<Record<string, readonly [entries: number, chars: number]>> = {
  redirect_uris: [B.redirectUris, B.uriChars],
  contacts: [B.contacts, B.contactChars],
  grant_types: [B.listEntries, B.wordChars],
  response_types: [B.listEntries, B.wordChars],
  token_endpoint_auth_methods_supported: [B.listEntries, B.wordChars],
  token_endpoint_auth_signing_alg_values_supported: [B.listEntries, B.wordChars],
};

/** The fields the library keeps in languages (`client_name#fr`): RFC 7591 §2.2. */
const VARIANT_FIELDS = new Set(["client_name", "client_uri", "logo_uri", "policy_uri", "tos_uri"]);

function tooLong(field: string, value: string, most: number): string | undefined {
  return value.length > most ? `${field} is ${value.length} characters long; at most ${most} are accepted` : undefined;
}

function listProblem(field: string, list: readonly unknown[], [entries, chars]: readonly [number, number]) {
  if (list.length > entries) return `${field} lists ${list.length} entries; at most ${entries} are accepted`;
  for (const [i, entry] of list.entries()) {
    const problem = typeof entry === "string" ? tooLong(`${field}[${i}]`, entry, chars) : undefined;
    if (problem) return problem;
  }
  return undefined;
}

/** `client_name#fr` and the like: the field and its language tag; undefined for other names. */
function variantOf(field: string): { base: string; tag: string } | undefined {
  const hash = field.indexOf("#");
  const base = field.slice(0, hash);
  return hash > 0 && VARIANT_FIELDS.has(base) ? { base, tag: field.slice(hash + 1) } : undefined;
}

function fieldProblem(field: string, value: unknown): string | undefined {
  if (field in TEXT) return typeof value === "string" ? tooLong(field, value, TEXT[field]!) : undefined;
  if (field in LISTS) return Array.isArray(value) ? listProblem(field, value, LISTS[field]!) : undefined;
  const variant = variantOf(field);
  if (!variant) return undefined;
  const tag = tooLong(`${field}'s language tag`, variant.tag, B.tagChars);
  return tag ?? (typeof value === "string" ? tooLong(field, value, TEXT[variant.base]!) : undefined);
}

/**
 * What is out of bounds in client metadata (RFC 7591 names), as an `invalid_client_metadata`
 * description naming the field and its limit; undefined when all is within. Values of the wrong type
 * are left to the library, which refuses them itself; fields it does not keep count in the size only.
 */
export function clientMetadataProblem(metadata: Readonly<Record<string, unknown>>): string | undefined {
  const fields = Object.keys(metadata);
  const variants = fields.filter((field) => variantOf(field)).length;
  if (variants > B.variants) {
    return `the metadata has ${variants} language variants (client_name#fr …); at most ${B.variants} are accepted`;
  }
  for (const field of fields) {
    const problem = fieldProblem(field, metadata[field]);
    if (problem) return problem;
  }
  return undefined;
}

/** A registration's JSON beyond its size bound, as an `invalid_client_metadata` description. */
export function documentSizeProblem(bytes: number): string | undefined {
  const most = B.documentBytes;
  return bytes > most ? `the client metadata is ${bytes} bytes of JSON; at most ${most} are accepted` : undefined;
}

/** A client as the library keeps it (registered, or resolved from its metadata document), by RFC 7591 names. */
export function clientInfoMetadata(client: ClientInfo): Record<string, unknown> {
  return {
    client_id: client.clientId,
    redirect_uris: client.redirectUris,
    client_name: client.clientName,
    client_uri: client.clientUri,
    logo_uri: client.logoUri,
    policy_uri: client.policyUri,
    tos_uri: client.tosUri,
    jwks_uri: client.jwksUri,
    contacts: client.contacts,
    grant_types: client.grantTypes,
    response_types: client.responseTypes,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    ...client.i18n,
  };
}

/** What the consent page shows and toolgate keeps of a pending sign-in, by RFC 7591 names. */
export function consentMetadata(consent: ConsentDescription): Record<string, unknown> {
  const { clientId, clientName, clientUri, logoUri, redirectUri } = consent;
  const shown = { client_id: clientId, client_name: clientName, client_uri: clientUri, logo_uri: logoUri };
  return { ...shown, redirect_uris: [redirectUri] };
}
