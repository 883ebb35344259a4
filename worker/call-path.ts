import type { Context } from "hono";
import { getPath } from "hono/utils/url";
import { answerError } from "./answer-error";
import type { AppEnv } from "./env";
import { Hono } from "./hono-lazy";
import { hostRefusal } from "./mcp/transport/guard";
import { authenticate, forbidden, hasScope } from "./middleware/auth";
import { readBodyWithin } from "./middleware/body-limit";
import { keepVaryByOrigin, varyByOrigin } from "./middleware/cors";
import { assignRequestId } from "./middleware/request-id";
import { withSecurityHeaders } from "./middleware/security-headers";
import { joinRemoteTools, tenantLoader } from "./middleware/tenant";
import { postCalls, postCallsAs } from "./routes/calls";
import { postMcp } from "./routes/mcp";
import type { BundledConfig } from "./tenant/bundled-config";
import type { Catalog } from "./tenant/catalog";

/** The paths of calls: /mcp, /v1/calls and /v1/calls/<format>, exactly (no trailing slash). */
const CALL_PATH = /^\/(?:mcp|v1\/calls(?:\/[^/]+)?)$/;

/**
 * Whether a request takes the call path: a POST to a call route without an Origin header (no
 * browser's cross-origin request, so no CORS beyond `Vary: Origin`). Everything else is the app's.
 */
export function takesCallPath(request: Request): boolean {
  return request.method === "POST" && !request.headers.has("origin") && CALL_PATH.test(getPath(request));
}

type Route = (c: Context<AppEnv>) => Promise<Response>;

/**
 * The checks of the app's middleware for a call, in the app's order, as one straight line: request
 * id, tenant, `Vary: Origin`, the body read within its limits, then the route's own (/mcp: Host and
 * Origin, key, scope, remote tools; /v1/calls: key, remote tools, scope). Every failure answers as
 * the app's error handler does, and every answer gets the security headers.
 */
function callRoute(loadTenant: (c: Context<AppEnv>) => Promise<void>, isMcp: boolean, route: Route): Route {
  const checkScope = (c: Context<AppEnv>) => {
    const caller = c.get("caller");
    if (!hasScope(caller, "call")) throw forbidden(caller, "call");
  };
  return async (c) => {
    let answer: Response;
    // The chain's CORS step, and so `Vary: Origin`, is only reached once the tenant has loaded.
    let varies = false;
    try {
      assignRequestId(c);
      await loadTenant(c);
      varyByOrigin(c);
      varies = true;
      await readBodyWithin(c);
      const refusal = isMcp ? hostRefusal(c) : undefined;
      if (refusal) answer = refusal;
      else {
        c.set("caller", await authenticate(c, c.req.header("Authorization")));
        if (isMcp) checkScope(c);
        joinRemoteTools(c);
        if (!isMcp) checkScope(c);
        answer = await route(c);
      }
    } catch (error) {
      answer = answerError(error as Error, c);
    }
    c.res = answer;
    if (varies) keepVaryByOrigin(c);
    return withSecurityHeaders(c.res);
  };
}

/**
 * The call routes without the app's middleware composition (issue 31): one handler per route, so
 * Hono runs it alone, and the body is read once into bytes the route decodes (no rebuilt Request).
 * The answers are the app's: test/worker holds both paths to them.
 */
export function createCallPath(catalog: Catalog, bundled?: BundledConfig): Hono<AppEnv> {
  const loadTenant = tenantLoader(catalog, bundled);
  const path = new Hono<AppEnv>();
  path.post("/mcp", callRoute(loadTenant, true, postMcp));
  path.post("/v1/calls", callRoute(loadTenant, false, postCalls));
  path.post(
    "/v1/calls/:format",
    callRoute(loadTenant, false, (c) => postCallsAs(c, c.req.param("format")!)),
  );
  path.onError((error, c) => withSecurityHeaders(answerError(error, c)));
  return path;
}
