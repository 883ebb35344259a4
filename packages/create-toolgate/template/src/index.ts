// The Worker: toolgate's kit over this project's tools and tenant configuration.
import { createToolgate } from "toolgate/worker";
import config from "../tenants/main.json";
import add from "../tools/add";
import greet from "../tools/greet";

const toolgate = createToolgate({
  // Every tool of tools/ the tenant may offer: add a file there, then its import and its name here.
  tools: [add, greet],
  tenant: { config, source: "tenants/main.json" },
});

// Exported under the names wrangler.toml binds (named: wrangler types reads the classes from them).
export const { Runner, ToolgateService } = toolgate;
export { AdapterPins, Connections, Gate, GateIndex, Identity, Keys, Ledger, Upstream } from "toolgate/worker/objects";
export default toolgate;
