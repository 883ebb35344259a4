/**
 * The wire contract of the HTTP API: the shapes the Worker answers (worker/routes/*), the typed client
 * reads and the console shows. Types only, but for the list of call surfaces.
 */
export { CALL_SURFACES } from "./surface";
export type { CallSurface } from "./surface";
export type * from "./adapters";
export type * from "./approvals";
export type * from "./calls";
export type * from "./connections";
export type * from "./events";
export type * from "./gates";
export type * from "./keys";
export type * from "./metrics";
export type * from "./oauth";
export type * from "./tools";
export type * from "./users";
