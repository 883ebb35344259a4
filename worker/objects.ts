/**
 * The Durable Object classes every entry module exports under the names wrangler.toml binds
 * (`toolgate/worker/objects`). Runner, which runs the entry's own tools, comes from createToolgate.
 *
 * @module toolgate/worker/objects
 */
export { Gate } from "./gates/gate";
export { GateIndex } from "./gates/gate-index";
export { Ledger } from "./ledger/ledger";
export { AdapterPins } from "./pins/adapter-pins";
export { Upstream } from "./upstreams/upstream";
export { Keys } from "./keys/keys";
export { Identity } from "./identity/object";
export { Connections } from "./connections/object";
