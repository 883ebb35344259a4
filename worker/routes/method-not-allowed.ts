import { PatternRouter } from "hono/router/pattern-router";
import { ApiError } from "../errors";

/** A route as Hono lists it (app.routes): middleware and `.all()` routes have the method "ALL". */
interface ListedRoute {
  method: string;
  path: string;
}

/** A 405 naming the methods the path takes, in an Allow header (RFC 9110 §15.5.6). */
export function methodNotAllowed(method: string, path: string, allowed: readonly string[]): ApiError {
  const allow = allowed.join(", ");
  return new ApiError(405, "method_not_allowed", `${path} takes ${allow}, not ${method}.`, { Allow: allow });
}

/**
 * The methods an app's routes take at a path, for a request no route took: none, when the path is
 * unknown (a 404). HEAD goes with GET, as Hono answers it. The routes are read at the first call,
 * when the app has them all; a request no route takes is rare, so its matching is not cached.
 */
export function allowedMethods(routes: readonly ListedRoute[]): (path: string) => string[] {
  let router: PatternRouter<string> | undefined;
  let methods: string[] = [];
  return (path) => {
    if (!router) {
      router = new PatternRouter<string>();
      const listed = routes.filter((route) => route.method !== "ALL");
      for (const route of listed) router.add(route.method, route.path, route.method);
      methods = [...new Set(listed.map((route) => route.method))].sort();
    }
    const allowed = methods.filter((method) => router!.match(method, path)[0].length > 0);
    return allowed.includes("GET") ? [...allowed, "HEAD"].sort() : allowed;
  };
}
