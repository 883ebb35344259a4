import type {
  OAuthClientMetadata,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";

/**
 * An MCP client application's side of OAuth, for the official SDK v2 client in the console tests: its
 * registration, tokens and verifier, kept in memory. Its redirect URI is on loopback, as a desktop
 * client's is; the browser's visit to it is answered by the test (nothing listens there).
 */
export const CALLBACK = "http://127.0.0.1:9/oauth/callback";

/** The client application's side: where it keeps its registration, tokens and verifier. */
export class TestProvider {
  client?: StoredOAuthClientInformation;
  saved?: StoredOAuthTokens;
  verifier = "";
  authorizationUrls: URL[] = [];
  readonly redirectUrl = CALLBACK;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: "SDK v2 e2e client",
    redirect_uris: [CALLBACK],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
