import type { Context } from "hono";
import { Hono } from "./hono-lazy";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import type { BuildFailure } from "./tenant/build-failure";
import type { BundledConfig } from "./tenant/bundled-config";
import { BUILD_FAILURE, type Catalog } from "./tenant/catalog";
import { isOverloaded, overloaded } from "./durable/call";
import type { AppEnv } from "./env";
import { ApiError, ConfigError, errorBody } from "./errors";
import { logLine } from "./log";
import { allowedMethods, methodNotAllowed } from "./routes/method-not-allowed";
import { requireKey } from "./middleware/auth";
import { bodyLimit } from "./middleware/body-limit";
import { answerBuildFailure } from "./middleware/build-failure";
import { cors } from "./middleware/cors";
import { securityHeaders } from "./middleware/security-headers";
import { metricsExport } from "./middleware/metrics-export";
import { tracing } from "./middleware/tracing";
import { loadTenantFrom, remoteTools } from "./middleware/tenant";
import { calls } from "./routes/calls";
import { approvals } from "./routes/approvals";
import { auth } from "./routes/auth";
import { connections, disconnectConnection, listConnections } from "./routes/connections";
import { consents } from "./routes/consents";
import { keys } from "./routes/keys";
import { oauth } from "./routes/oauth";
import { adapters } from "./routes/adapters";
import { gates } from "./routes/gates";
import { metrics } from "./routes/metrics";
import { records } from "./routes/records";
import { events } from "./routes/events";
import { health } from "./routes/health";
import { ledgerShards } from "./routes/ledger-shards";
import { mcp } from "./routes/mcp";
import { tenantInfo } from "./routes/tenant";
import { tools } from "./routes/tools";
import { tenantTextMasker } from "./tenant/mask";

export interface AppOptions {
  /** The code tools a tenant's configuration may name: worker/tenant/catalog.ts (tests add their fixtures). */
  catalog: Catalog;
  /** The bundled configuration; by default the one the entry module registered (tests pass their own). */
  bundled?: BundledConfig;
  /**
   * A failed dev build: every request answers 503 with it; by default the catalogue module's (tests pass their own).
   */
  buildFailure?: BuildFailure;
}

/**
 * The HTTP API. Order matters: security headers (outermost: every answer gets them) → request id →
 * tenant (its config drives the rest) → CORS (before auth, so preflights pass) → body limit → key →
 * routes. Every failure answers JSON.
 */
export function createApp(options: AppOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(securityHeaders);
  const buildFailure = options.buildFailure ?? BUILD_FAILURE;
  if (buildFailure) return app.use(answerBuildFailure(buildFailure));
  app.use(requestId());
  app.use(loadTenantFrom(options.catalog, options.bundled));
  // OAuth's metadata, token, registration and authorize endpoints: before CORS (the library answers
  // its own preflights, for browser-based MCP clients) and before any key check.
  app.route("/", oauth);
  // The console's sign-in with the tenant's OpenID provider: pages of this origin's own, no CORS.
  app.route("/", auth);
  // A signed-in person connects their account at a connection's provider: pages of this origin's own, no CORS.
  app.route("/", connections);
  app.use(cors);
  app.use(bodyLimit);
  // A tenant with `telemetry`: the request's tracer, and its spans' export once its calls end.
  app.use(tracing);
  // A tenant with `telemetry.metrics`: its ledger's map object sends its metrics (started once per isolate).
  app.use(metricsExport);
  app.route("/", health);

  // Before the key check: the event stream also takes a short-lived token (EventSource sends no headers).
  app.route("/v1/events", events);
  app.use("/v1/*", requireKey, remoteTools);
  app.route("/v1/tools", tools);
  app.route("/v1/calls", calls); // POST: run calls
  app.route("/v1/calls", records); // GET: read records, POST /:id/cancel
  app.route("/v1/approvals", approvals);
  app.route("/v1/gates", gates);
  app.route("/v1/metrics", metrics);
  app.route("/v1/ledger/shards", ledgerShards);
  app.route("/v1/adapters", adapters);
  app.route("/v1/keys", keys);
  app.route("/v1/oauth", consents);
  app.get("/v1/connections", listConnections).delete("/v1/connections/:name", disconnectConnection);
  app.route("/v1", tenantInfo);
  // MCP over Streamable HTTP: its own Host/Origin guard, then the same keys and scopes.
  app.route("/mcp", mcp);

  // A path some route takes, with another method: 405 naming the methods (Allow), not a 404.
  const allowedAt = allowedMethods(app.routes);
  app.notFound((c) => {
    const allowed = allowedAt(c.req.path);
    if (allowed.length > 0) return answerError(methodNotAllowed(c.req.method, c.req.path, allowed), c);
    return c.json(errorBody("not_found", `No route for ${c.req.method} ${c.req.path}.`), 404);
  });
  app.onError(answerError);
  return app;
}

/** Expected failures answer their own status; anything else is logged (masked) and answers 500 JSON. */
function answerError(error: Error, c: Context<AppEnv>): Response {
  // An overloaded Durable Object reached from a call site that did not classify it: 503 all the same.
  if (isOverloaded(error)) error = overloaded();
  if (error instanceof ApiError) {
    return c.json(errorBody(error.code, error.message), error.status, error.headers);
  }
  if (error instanceof ConfigError) {
    logLine({ msg: "config_invalid", requestId: c.var.requestId, error: error.message });
    return c.json(errorBody("config_invalid", error.message), 500);
  }
  if (error instanceof HTTPException) {
    return c.json(
      errorBody(error.status === 413 ? "body_too_large" : "http_error", error.message || "Request failed."),
      error.status,
    );
  }
  const mask = tenantTextMasker(c);
  const cause = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ""}` : String(error);
  logLine({ msg: "unhandled_error", requestId: c.var.requestId, path: c.req.path, error: mask(cause) });
  return c.json(errorBody("internal", `Internal error (request ${c.var.requestId}).`), 500);
}
