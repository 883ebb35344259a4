import { createMiddleware } from "hono/factory";
import type { AppEnv, Caller } from "../env";
import { ApiError, errorBody } from "../errors";
import type { EndpointConfig } from "./config";

/**
 * Whether a caller may use an endpoint: any caller when it names no keys, roles or users; else a key it
 * names, or a person it names or who holds a role it names. A tenant grant (OAuth, for no person) holds
 * a token an admin approved for this endpoint's resource (its audience was checked): it may.
 */
export function mayUse(endpoint: EndpointConfig, caller: Caller): boolean {
  const { keys, roles, users } = endpoint;
  if (keys === undefined && roles === undefined && users === undefined) return true;
  if (keys?.includes(caller.keyName)) return true;
  const { user } = caller;
  if (!user) return caller.oauth !== undefined;
  return (users?.includes(user.id) ?? false) || (roles?.some((role) => user.roles.includes(role)) ?? false);
}

/** Puts the path's endpoint name on c.var (the OAuth resource and tools follow it); 404 for a name not served. */
export const endpointOfPath = createMiddleware<AppEnv>(async (c, next) => {
  const name = c.req.param("endpoint") ?? "";
  if (!Object.hasOwn(c.var.tenant.config.endpoints ?? {}, name))
    return c.json(errorBody("not_found", `This tenant serves no MCP endpoint "${name}".`), 404);
  c.set("endpoint", name);
  await next();
});

/** After the key check: 403 for a caller the endpoint does not name. */
export const requireEndpointAccess = createMiddleware<AppEnv>(async (c, next) => {
  const name = c.var.endpoint!;
  if (!mayUse(c.var.tenant.config.endpoints![name]!, c.var.caller))
    throw new ApiError(
      403,
      "forbidden",
      `This ${c.var.caller.oauth ? "grant" : "key"} may not use the MCP endpoint "${name}".`,
    );
  await next();
});
