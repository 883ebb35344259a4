import { createMiddleware } from "hono/factory";
import { RpcCode } from "../../../src/mcp/errors";
import type { AppEnv } from "../../env";
import { rpcError } from "../jsonrpc";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

function hostNameOf(host: string): string {
  return host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0]!;
}

/**
 * A configured entry with a port matches exactly; one without matches the name on any port. The
 * tenant's own workers.dev name (toolgate-<tenant>.<account>.workers.dev, as `tenant:add` deploys it)
 * is allowed without configuration, so a fresh deployment answers; custom domains go in `hosts`.
 */
export function hostAllowed(host: string, hosts: readonly string[], tenant: string): boolean {
  const name = hostNameOf(host);
  if (LOOPBACK.has(name) || hosts.some((entry) => entry === host || entry === name)) return true;
  const own = `toolgate-${tenant}.`;
  return name.startsWith(own) && /^[a-z0-9-]+\.workers\.dev$/.test(name.slice(own.length));
}

function originAllowed(
  origin: string,
  hosts: readonly string[],
  consoleOrigins: readonly string[],
  tenant: string,
): boolean {
  if (consoleOrigins.some((allowed) => allowed.toLowerCase() === origin)) return true;
  const match = /^https?:\/\/([^/]+)$/.exec(origin);
  return match !== null && hostAllowed(match[1]!.toLowerCase(), hosts, tenant);
}

/**
 * DNS-rebinding protection: a page on evil.example whose name resolves to 127.0.0.1 makes the browser
 * send Host: evil.example and Origin: http://evil.example, so both must name this deployment. Allowed:
 * loopback names (wrangler dev), the tenant's `hosts`, and its console origins (browsers only send
 * Origin; other clients send none).
 */
export const hostGuard = createMiddleware<AppEnv>(async (c, next) => {
  const { hosts, consoleOrigins } = c.var.tenant.config;
  const tenant = c.var.tenant.name;
  const host = (c.req.header("host") ?? new URL(c.req.url).host).toLowerCase();
  if (!hostAllowed(host, hosts, tenant)) {
    return c.json(
      rpcError(null, RpcCode.badRequest, `Host "${host}" is not allowed here; add it to the tenant's hosts.`),
      403,
    );
  }
  const origin = c.req.header("origin");
  if (origin !== undefined && !originAllowed(origin.toLowerCase(), hosts, consoleOrigins, tenant)) {
    return c.json(rpcError(null, RpcCode.badRequest, `Origin "${origin}" is not allowed here.`), 403);
  }
  await next();
});
