/** The Durable Object classes, exported by every entry module under the names wrangler.toml binds. */
export { Gate } from "./gates/gate";
export { GateIndex } from "./gates/gate-index";
export { Ledger } from "./ledger/ledger";
export { AdapterPins } from "./pins/adapter-pins";
export { Upstream } from "./upstreams/upstream";
export { Keys } from "./keys/keys";
export { Identity } from "./identity/object";

import { CATALOG } from "./tenant/catalog";
import { createRunnerClass } from "./runner/runner";

/** Runs detached calls of this build's catalogue (the test entry makes one over its own). */
export const Runner = createRunnerClass(CATALOG);
