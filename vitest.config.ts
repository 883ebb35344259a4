import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { HeldWorkerdLogs } from "./test/runner/held-workerd-logs.ts";
import { quietDependencySourcemaps } from "./test/runner/quiet-dependency-sourcemaps.ts";
import { secondIsolateWorker } from "./test/runner/second-isolate.ts";
import { SECOND_ISOLATE_SECRETS } from "./test/fixtures/second-isolate-tenant.ts";
import { WORKERD_TEST_SECRETS } from "./test/fixtures/workerd-secrets.ts";
import { writeGeneratedModules } from "./scripts/ts-entry.mjs";

// The catalogue module of tools/ and the library modules (all git-ignored), written before either project
// bundles worker code: the vitest plugin reads wrangler.toml but does not run its [build] command.
const root = fileURLToPath(new URL(".", import.meta.url));
await writeGeneratedModules(root);

// Two projects: the runtime-agnostic core in Node, the Worker in workerd (real Durable Objects).

/**
 * A test's time limit only catches hangs; tests that promise a latency assert it themselves. The
 * default 5 s is too close: on the shared 2-core machine under load the slowest tests take 3-4 s.
 */
const TEST_TIMEOUT_MS = 30_000;

export default defineConfig({
  test: {
    // A passing run prints a line per file and the summary: console output (the Worker's log line per
    // call) is shown only for failed tests, and workerd's own log only when the run fails.
    silent: "passed-only",
    reporters: [new HeldWorkerdLogs(), "default"],
    projects: [
      {
        test: { name: "core", environment: "node", include: ["test/core/**/*.test.ts"], testTimeout: TEST_TIMEOUT_MS },
      },
      {
        plugins: [
          quietDependencySourcemaps(),
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // wrangler.toml's bindings, with the test entry: the same Worker over the test catalogue (fixture tools).
            main: "./test/fixtures/worker.ts",
            miniflare: {
              // The second isolate's tenant signs people in: its client secret's binding, here too. The
              // demo providers' and connections' secrets: detached runs read the Worker's own env.
              bindings: { ...SECOND_ISOLATE_SECRETS, ...WORKERD_TEST_SECRETS },
              // A second Worker bound to toolgate's RPC entrypoint (test/worker/api/binding.test.ts), and
              // toolgate in an isolate of its own over the same objects (test/runner/second-isolate.ts).
              serviceBindings: { CHAT_APP: "chat-app", SECOND_ISOLATE: "toolgate-second-isolate" },
              workers: [
                secondIsolateWorker(root),
                {
                  name: "chat-app",
                  modules: true,
                  scriptPath: "./test/worker/fixtures/chat-app.mjs",
                  compatibilityDate: "2026-11-01",
                  // The plugin renames the Worker under test to its runner, "vitest-plugin-runner-<project>".
                  serviceBindings: { TOOLGATE: { name: "vitest-plugin-runner-worker", entrypoint: "ToolgateService" } },
                },
              ],
            },
          }),
        ],
        // globalSetup runs in Node: it starts the adapter tests' upstreams on 127.0.0.1 (inject("upstreams")).
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          globalSetup: ["./test/servers/worker-setup.ts"],
          testTimeout: TEST_TIMEOUT_MS,
        },
      },
    ],
  },
});
