/**
 * The connections library (oauth4webapi, and toolgate's code over it: worker/connections/lazy/),
 * compiled and evaluated on first use. A module of its own beside the bundle
 * (connections/library.generated.mjs, written by scripts/connections-module.mjs; wrangler.toml's
 * find_additional_modules uploads it): tenants without `connections` never parse it. At worker/'s root,
 * as identity-library.ts: the import's specifier is resolved from the bundle's root.
 */
export type ConnectionsLibrary = typeof import("./connections/lazy/entry");
export type {
  AnswerKind,
  ConnectFailureReason,
  ConnectionsApiDeps,
  ConnectionClient,
  ConnectionInfo,
  ConnectPageDeps,
  PendingConnect,
  TokenSet,
} from "./connections/lazy/entry";

export function connectionsLibrary(): Promise<ConnectionsLibrary> {
  return import("./connections/library.generated.mjs");
}
