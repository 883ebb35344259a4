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
        plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
        test: { name: "worker", include: ["test/worker/**/*.test.ts"] },
      },
    ],
  },
});
