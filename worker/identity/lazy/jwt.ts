import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type JWTHeaderParameters,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  jwtVerify,
} from "jose";
import { UnreachableIssuer } from "./http";
import { type KeySet, keySet, rotatedKeySet } from "./jwks";

/**
 * JWT verification for every token toolgate trusts (OIDC ID tokens, Cloudflare Access assertions,
 * apps' user tokens): the signature against the issuer's key set (jwks.ts, with rotation), the
 * algorithm against an allow-list, and the claims (iss, aud, exp, nbf, iat, lifetime). Answers a plain
 * result, never throws: this module is loaded apart from the Worker's bundle, and a class of
 * toolgate's made here would not be the one the bundle checks with instanceof.
 */

/** Tokens longer than this are refused before anything parses them. */
export const MAX_TOKEN_BYTES = 16 * 1024;
/** Clock skew allowed between the issuer and this isolate, in seconds (exp, nbf, iat). */
export const CLOCK_TOLERANCE_SECONDS = 30;
/** Keys tried for a token without `kid` that several keys of the set could have signed. */
const MAX_CANDIDATES = 8;

/**
 * Why a token is refused. keys_unavailable is the issuer's fault, not the token's (its key set could
 * not be had): answer 503, not 401 (worker/identity/refusal.ts).
 */
export type JwtFailureReason =
  | "too_large"
  | "malformed"
  | "algorithm_not_allowed"
  | "unknown_key"
  | "bad_signature"
  | "expired"
  | "not_yet_valid"
  | "wrong_issuer"
  | "wrong_audience"
  | "missing_claim"
  | "lifetime_too_long"
  | "keys_unavailable";

export interface VerifyJwtOptions {
  /** The issuer's key set (https, or http on loopback: the configuration checked it). */
  jwksUri: string;
  /** The exact `iss` expected. */
  issuer: string;
  /** The `aud` expected (the token's may be a list holding it). */
  audience: string;
  /** Signature algorithms accepted: toolgate's allow-list (never none or HS*). */
  algorithms: readonly string[];
  /** Longest lifetime (exp - iat) accepted, in seconds; absent: any. */
  maxLifetimeSeconds?: number;
  /** The time to verify at (ms since the epoch); default now. Tests move it. */
  now?: number;
}

export type JwtResult =
  | { ok: true; claims: Record<string, unknown>; header: { alg: string; kid?: string } }
  | { ok: false; reason: JwtFailureReason; detail: string };

const failure = (reason: JwtFailureReason, detail: string): JwtResult => ({ ok: false, reason, detail });

/** jose's error → toolgate's reason, with a detail that names what failed (never the token). */
function failureOf(error: unknown, options: VerifyJwtOptions): JwtResult {
  if (error instanceof errors.JWTExpired) return failure("expired", "it has expired");
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === "missing") return failure("missing_claim", `it has no "${error.claim}" claim`);
    if (error.claim === "iss") return failure("wrong_issuer", `its issuer is not ${options.issuer}`);
    if (error.claim === "aud") return failure("wrong_audience", `its audience is not ${options.audience}`);
    if (error.claim === "nbf") return failure("not_yet_valid", "it is not valid yet (nbf)");
    return failure("malformed", `its "${error.claim}" claim is invalid`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported)
    return failure("algorithm_not_allowed", `its algorithm is not one of ${options.algorithms.join(", ")}`);
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return failure("bad_signature", "its signature does not verify");
  if (error instanceof errors.JWKSInvalid || error instanceof errors.JWKInvalid)
    return failure("keys_unavailable", `the key set at ${options.jwksUri} holds an unusable key`);
  if (error instanceof UnreachableIssuer)
    return failure("keys_unavailable", `the key set at ${options.jwksUri} is unavailable: ${error.message}`);
  return failure("malformed", "it is not a well-formed signed JWT");
}

/** Looks keys up in the set: imported ones kept by `alg \n kid`, others imported from its JSON. */
function keysOf(set: KeySet): JWTVerifyGetKey {
  return async (header, token) => {
    const known = set.keys.get(`${header.alg}\n${header.kid ?? ""}`);
    if (known) return known;
    // A fresh LocalJWKSet per lookup: jose's keeps pending imports, which must not outlive this request.
    return createLocalJWKSet(set.jwks)(header, token);
  };
}

type Attempt = JwtResult | "no_key";

/** One verification against one key set; "no_key" when no key of the set matches the token's header. */
async function attempt(token: string, set: KeySet, options: VerifyJwtOptions, now: number): Promise<Attempt> {
  const verifyOptions: JWTVerifyOptions = {
    issuer: options.issuer,
    audience: options.audience,
    algorithms: [...options.algorithms],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ["exp", "iat"],
    currentDate: new Date(now),
  };
  try {
    const { payload, protectedHeader, key } = await jwtVerify(token, keysOf(set), verifyOptions);
    set.keys.set(`${protectedHeader.alg}\n${protectedHeader.kid ?? ""}`, key as CryptoKey);
    return checked(payload, protectedHeader, options, now);
  } catch (error) {
    if (error instanceof errors.JWKSNoMatchingKey) return "no_key";
    if (error instanceof errors.JWKSMultipleMatchingKeys)
      return eachCandidate(token, error, verifyOptions, options, now);
    return failureOf(error, options);
  }
}

/** A token without `kid` that several keys could have signed: each is tried, the first that verifies wins. */
async function eachCandidate(
  token: string,
  candidates: errors.JWKSMultipleMatchingKeys,
  verifyOptions: JWTVerifyOptions,
  options: VerifyJwtOptions,
  now: number,
): Promise<JwtResult> {
  let outcome = failure("bad_signature", "its signature does not verify");
  let tried = 0;
  for await (const key of candidates) {
    if (++tried > MAX_CANDIDATES) break;
    try {
      const { payload, protectedHeader } = await jwtVerify(token, key, verifyOptions);
      return checked(payload, protectedHeader, options, now);
    } catch (error) {
      outcome = failureOf(error, options);
      if (outcome.ok || outcome.reason !== "bad_signature") return outcome;
    }
  }
  return outcome;
}

/** Claims jose leaves alone: iat not in the future, and the lifetime bound. */
function checked(
  payload: Record<string, unknown>,
  header: JWTHeaderParameters,
  options: VerifyJwtOptions,
  now: number,
): JwtResult {
  const iat = payload.iat as number;
  const exp = payload.exp as number;
  if (iat > now / 1000 + CLOCK_TOLERANCE_SECONDS) return failure("not_yet_valid", "it was issued in the future (iat)");
  if (options.maxLifetimeSeconds !== undefined && exp - iat > options.maxLifetimeSeconds)
    return failure("lifetime_too_long", `it lives longer than ${options.maxLifetimeSeconds} s (exp - iat)`);
  return {
    ok: true,
    claims: payload,
    header: { alg: header.alg, ...(typeof header.kid === "string" ? { kid: header.kid } : {}) },
  };
}

/**
 * Verifies a JWT: its signature with a key of the issuer's set (a key id the set lacks fetches the
 * set again once per cooldown: that is how a rotation is followed), its algorithm against
 * `algorithms`, and its claims: iss, aud, exp and iat required, nbf honoured, 30 s of clock skew.
 */
export async function verifyJwt(token: string, options: VerifyJwtOptions): Promise<JwtResult> {
  if (token.length > MAX_TOKEN_BYTES) return failure("too_large", `it is over ${MAX_TOKEN_BYTES} bytes`);
  const now = options.now ?? Date.now();
  try {
    let outcome = await attempt(token, await keySet(options.jwksUri, now), options, now);
    if (outcome === "no_key") {
      const rotated = await rotatedKeySet(options.jwksUri, now);
      if (rotated) outcome = await attempt(token, rotated, options, now);
    }
    return outcome === "no_key"
      ? failure("unknown_key", "no key of its issuer's set matches its header (kid)")
      : outcome;
  } catch (error) {
    return failureOf(error, options);
  }
}

/**
 * A token's header and claims, NOT verified: only to choose which issuer's rules verify it (an app
 * token's `iss` picks its `identity.appTokens` entry). Null when it is not a JWT or is too large.
 */
export function readUnverified(
  token: string,
): { header: Record<string, unknown>; claims: Record<string, unknown> } | null {
  if (token.length > MAX_TOKEN_BYTES) return null;
  try {
    return { header: decodeProtectedHeader(token) as Record<string, unknown>, claims: decodeJwt(token) };
  } catch {
    return null;
  }
}
