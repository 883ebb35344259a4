import type {
  OAuthClientMetadata,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import type { Page } from "playwright-core";

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

/**
 * Runs `browse` with the browser's visit to CALLBACK answered by the test (nothing listens there);
 * answers the query the authorization server sent back.
 */
export async function throughCallback(page: Page, browse: () => Promise<void>): Promise<URLSearchParams> {
  let callback: string | undefined;
  await page.route(
    (url) => url.href.startsWith(CALLBACK),
    (route) => {
      callback = route.request().url();
      return route.fulfill({ status: 200, contentType: "text/plain", body: "Signed in; return to the app." });
    },
  );
  try {
    await browse();
    await page.waitForURL((url) => url.href.startsWith(CALLBACK));
  } finally {
    await page.unrouteAll({ behavior: "wait" });
  }
  return new URL(callback!).searchParams;
}
