import { ConfigError } from "../errors";
import type { ConnectionsConfig } from "./config";

/**
 * The client secret of connection `name`, from the Worker secret its `clientSecret` names. Throws
 * ConfigError naming the field when the secret is not set.
 */
export function connectionClientSecret(connections: ConnectionsConfig, name: string, env: object): string {
  const secret = connections[name]!.clientSecret;
  const value = (env as Record<string, unknown>)[secret];
  if (typeof value !== "string" || value === "")
    throw new ConfigError(
      `connections.${name}.clientSecret: the Worker secret ${secret} is not set (wrangler secret put ${secret})`,
    );
  return value;
}

/** Every connection's client secret is set: readyTenant checks it per request (a deploy missing one fails at once). */
export function checkConnectionSecrets(connections: ConnectionsConfig | undefined, env: object): void {
  for (const name of Object.keys(connections ?? {})) connectionClientSecret(connections!, name, env);
}
