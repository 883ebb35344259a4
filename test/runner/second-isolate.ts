import { buildSync } from "esbuild";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { SECOND_ISOLATE_CONFIG, SECOND_ISOLATE_SECRETS } from "../fixtures/second-isolate-tenant.ts";

/**
 * toolgate once more, as an auxiliary Worker of the workerd test project: the same test entry
 * (test/fixtures/worker.ts) bundled on its own, so it runs in an isolate of its own, sharing no
 * module memory with the Worker under test. Its Durable Object bindings point at the objects of the
 * Worker under test, so both serve one tenant's state the way two isolates of a deployment do:
 * a test sends one request to each (test/worker/mcp/ask-legacy.test.ts).
 */

/** The plugin names the Worker under test after its project: its objects are this script's. */
const RUNNER = "vitest-plugin-runner-worker";
const BUNDLE = ".tmp/toolgate-second-isolate.mjs";
const OBJECTS = {
  GATES: "Gate",
  GATE_INDEX: "GateIndex",
  LEDGER: "Ledger",
  UPSTREAMS: "Upstream",
  ADAPTER_PINS: "AdapterPins",
  RUNNERS: "Runner",
  KEYS: "Keys",
  IDENTITY: "Identity",
};

export function secondIsolateWorker(root: string) {
  const outfile = resolve(root, BUNDLE);
  mkdirSync(dirname(outfile), { recursive: true });
  buildSync({
    entryPoints: [resolve(root, "test/fixtures/worker.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    external: ["cloudflare:*", "node:*"],
    outfile,
    logLevel: "warning",
  });
  return {
    name: "toolgate-second-isolate",
    modules: true,
    scriptPath: outfile,
    compatibilityDate: "2026-11-01",
    compatibilityFlags: ["enable_request_signal", "global_fetch_strictly_public"],
    durableObjects: Object.fromEntries(
      Object.entries(OBJECTS).map(([binding, className]) => [binding, { className, scriptName: RUNNER }]),
    ),
    kvNamespaces: ["OAUTH_KV"],
    bindings: { TOOLGATE_CONFIG: SECOND_ISOLATE_CONFIG, ...SECOND_ISOLATE_SECRETS },
  };
}
