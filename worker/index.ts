import { createToolgate } from "toolgate/worker";
import { BUILD_FAILURE, CATALOG } from "./tenant/catalog";

/**
 * The demo Worker (wrangler.toml's top-level environment), built with the kit as any project builds
 * one: its tools are this build's catalogue of tools/. A tenant's entry, tenants/<name>.ts, adds its
 * bundled configuration.
 */
const toolgate = createToolgate({ tools: CATALOG, buildFailure: BUILD_FAILURE });

export const { Runner, ToolgateService } = toolgate;
// Named, not "export *": wrangler types reads the classes the bindings name from these exports.
export { AdapterPins, Connections, Gate, GateIndex, Identity, Keys, Ledger, Upstream } from "toolgate/worker/objects";
export default toolgate;
