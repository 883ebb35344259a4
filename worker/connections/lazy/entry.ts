/**
 * The connections library: toolgate as the OAuth client of the providers tools act as the user
 * through, and the sealed per-user token rows. A module apart from the Worker
 * (scripts/connections-module.mjs → worker/connections/library.generated.mjs), loaded on first use:
 * tenants without `connections` never compile it. It may import only oauth4webapi and files of this folder.
 */
export { accessToken, REFRESH_BEFORE_MS } from "./access";
export { exchangeToken, type SubjectToken } from "./exchange";
export { tokenFor } from "./token-for";
export {
  beginConnect,
  type BeginResult,
  type ConnectFailure,
  type ConnectFailureReason,
  type ConnectionClient,
  finishConnect,
  refreshConnection,
  type TokenSet,
  type TokensResult,
} from "./oauth-client";
export { type AnswerKind, answer, type ConnectionsApiDeps } from "./api";
export type { ConnectPageDeps } from "./routes";
export type { DisconnectResult } from "./disconnect";
export { type OpCall, runOpCall } from "./ops";
export { open, seal } from "./seal";
export { type AccessTokenResult, forgetKept, userToken } from "./tokens";
export { connectElicitation, type UrlElicitation } from "./url-required";
export * as connectionsStore from "./store";
export type { ConnectionInfo, Loaded, Owner, PendingConnect } from "./store";
