import { createApp } from "./app";
import { CATALOG } from "./tenant/catalog";
import { createToolgateService } from "./entrypoint";

/** The Worker: the HTTP API over this build's catalogue, its RPC entrypoint and its Durable Objects. */
const app = createApp({ catalog: CATALOG });

export const ToolgateService = createToolgateService(app);
export { AdapterPins, Gate, GateIndex, Identity, Keys, Ledger, Runner, Upstream } from "./objects";

export default app;
