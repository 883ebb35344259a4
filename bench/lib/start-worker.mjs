/**
 * `wrangler dev` without its debugger: the same local runtime (Miniflare, workerd, wrangler's proxy
 * Worker in front) started through wrangler's API with `dev.inspector: false`, which the CLI cannot
 * do. With the inspector attached, wrangler relays every console.log of the Worker to a second
 * workerd (Runtime.consoleAPICalled → its InspectorProxyWorker), which costs more CPU per log line
 * than a whole request to a constant route; production has no such relay.
 * Usage: node start-worker.mjs <cwd> <port> <persist dir> [config]   — prints "ready <url>", stops on SIGINT.
 */
import { unstable_startWorker } from "wrangler";

const [cwd, port, persist, config] = process.argv.slice(2);
process.chdir(cwd);
const worker = await unstable_startWorker({
  config: config ?? "wrangler.toml",
  dev: {
    server: { hostname: "127.0.0.1", port: Number(port) },
    inspector: false,
    persist,
    logLevel: "warn",
    watch: false,
  },
});
await worker.ready;
console.log(`ready ${(await worker.url).origin}`);
process.once("SIGINT", () => void worker.dispose().then(() => process.exit(0)));
