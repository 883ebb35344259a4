import { ConfigError } from "../errors";

/**
 * The tenant's connections secret (a Worker secret): tokens at rest are sealed under a key derived from
 * it. Rotation: set the new value as TOOLGATE_CONNECTIONS_SECRET and the old one as
 * TOOLGATE_CONNECTIONS_SECRET_PREVIOUS; rows sealed under the old one still open, and are sealed again
 * under the new one as they are used. Remove the previous one once every user's connections were used.
 */
export const CONNECTIONS_SECRET = "TOOLGATE_CONNECTIONS_SECRET";
export const CONNECTIONS_SECRET_PREVIOUS = "TOOLGATE_CONNECTIONS_SECRET_PREVIOUS";

/** At least this many characters (32 random bytes as base64 or hex are more). */
const MIN_CHARS = 32;

/** The current secret first, then the previous one if set. Throws ConfigError naming a missing or short one. */
export function connectionSecrets(env: object): string[] {
  const secrets: string[] = [];
  for (const name of [CONNECTIONS_SECRET, CONNECTIONS_SECRET_PREVIOUS]) {
    const value = (env as Record<string, unknown>)[name];
    if (value === undefined && name === CONNECTIONS_SECRET_PREVIOUS) continue;
    if (typeof value !== "string" || value.length < MIN_CHARS)
      throw new ConfigError(
        `connections: the Worker secret ${name} must be set to at least ${MIN_CHARS} random characters ` +
          `(openssl rand -base64 32 | npx wrangler secret put ${name})`,
      );
    secrets.push(value);
  }
  return secrets;
}
