import { defineConfig } from "vitest/config";
import { cloudflareTest } from "@cloudflare/vitest-plugin";

// Two projects: the runtime-agnostic core in Node, the Worker in workerd (real Durable Objects).
export default defineConfig({
  test: {
    projects: [
      {
        test: { name: "core", environment: "node", include: ["test/core/**/*.test.ts"] },
      },
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              // A second Worker bound to toolgate's RPC entrypoint (test/worker/binding.test.ts).
              serviceBindings: { CHAT_APP: "chat-app" },
              workers: [
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
        test: { name: "worker", include: ["test/worker/**/*.test.ts"], globalSetup: ["./test/servers/worker-setup.ts"] },
      },
    ],
  },
});
