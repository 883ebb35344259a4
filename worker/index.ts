import { app } from "./app";

export { ToolgateService } from "./entrypoint";
export { Gate } from "./durable/gate";
export { GateIndex } from "./durable/gate-index";
export { Ledger } from "./durable/ledger";
export { Upstream } from "./durable/upstream";
export { AdapterPins } from "./durable/pins";

export default app;
