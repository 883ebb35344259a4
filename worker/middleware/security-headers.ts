import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";

/**
 * The Worker serves no HTML (the console is static assets, web/public/_headers sets theirs): a document
 * it answers — an error page, JSON opened in a tab — loads nothing and is never framed.
 */
const POLICY = "default-src 'none'; frame-ancestors 'none'";

function apply(headers: Headers): void {
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("X-Frame-Options", "DENY");
  // A route's own policy stays; none sets one today.
  if (!headers.has("Content-Security-Policy")) headers.set("Content-Security-Policy", POLICY);
}

/** The response with the headers set: itself, or a copy when its headers are immutable (a redirect's, a fetch's). */
export function withSecurityHeaders(response: Response): Response {
  try {
    apply(response.headers);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    apply(copy.headers);
    return copy;
  }
}

/**
 * Every answer of the Worker — the API's JSON, MCP, the OAuth library's own answers and /authorize's
 * page, CORS preflights, errors and 404s — is never sniffed into another type and never framed
 * (clickjacking). The app's outermost middleware, so no route, error or not-found answer escapes it.
 */
export const securityHeaders = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const response = withSecurityHeaders(c.res);
  if (response !== c.res) c.res = response;
});
