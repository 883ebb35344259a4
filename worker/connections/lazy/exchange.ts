import { genericTokenEndpointRequest, processGenericTokenEndpointResponse } from "oauth4webapi";
import {
  authOf,
  type ConnectionClient,
  clientOf,
  failureOf,
  metadataOf,
  requestOptions,
  type TokensResult,
  tokenSetOf,
} from "./oauth-client";

/**
 * RFC 8693 token exchange: the user's identity token (the subject token) traded at the provider's token
 * endpoint for a token of the upstream API. The connection's kind "exchange": no connect page, no
 * refresh token; an expiring token is exchanged again with the call's subject token.
 */

const GRANT_TYPE = "urn:ietf:params:oauth:grant-type:token-exchange";
/** RFC 8693 §3 token type identifiers. */
const TOKEN_TYPE_URN = {
  access_token: "urn:ietf:params:oauth:token-type:access_token",
  id_token: "urn:ietf:params:oauth:token-type:id_token",
  jwt: "urn:ietf:params:oauth:token-type:jwt",
} as const;

/** The user's identity token a call presents: a console sign-in's ID token, or an app's signed user token. */
export interface SubjectToken {
  token: string;
  /** What it is (RFC 8693 §3): the connection's `subjectTokenType` declares otherwise. */
  type: "id_token" | "jwt";
}

/** Exchanges `subject` for the provider's token holding `scopes` (audience, resource as the connection says). */
export async function exchangeToken(
  client: ConnectionClient,
  subject: SubjectToken,
  scopes: readonly string[],
  now = Date.now(),
): Promise<TokensResult> {
  const parameters = new URLSearchParams({
    subject_token: subject.token,
    subject_token_type: TOKEN_TYPE_URN[client.subjectTokenType ?? subject.type],
    requested_token_type: TOKEN_TYPE_URN[client.requestedTokenType ?? "access_token"],
  });
  if (client.audience) parameters.set("audience", client.audience);
  if (client.resource) parameters.set("resource", client.resource);
  if (scopes.length > 0) parameters.set("scope", scopes.join(" "));
  try {
    const as = await metadataOf(client);
    if (!as.token_endpoint)
      return { ok: false, reason: "invalid_response", detail: "its metadata names no token endpoint" };
    const response = await genericTokenEndpointRequest(
      as,
      clientOf(client),
      authOf(client),
      GRANT_TYPE,
      parameters,
      requestOptions(as.token_endpoint),
    );
    const result = await processGenericTokenEndpointResponse(as, clientOf(client), response);
    // An exchange's answer has no refresh token toolgate would use: the next expiry exchanges again.
    const { refreshToken: _unused, ...tokens } = tokenSetOf(result, scopes, now);
    return { ok: true, tokens };
  } catch (error) {
    return failureOf(error);
  }
}
