import type { ConnectionClient } from "../connections-library";
import { connectionClientSecret } from "./client-secret";
import type { ConnectionsConfig } from "./config";

/** The library's view of connection `name`: its configuration, with its client secret read from the Worker secret. */
export function connectionClient(connections: ConnectionsConfig, name: string, env: unknown): ConnectionClient {
  return { ...connections[name]!, clientSecret: connectionClientSecret(connections, name, env as object) };
}
