import { defineConfig } from "vitest/config";

// The console in real Chromium against `wrangler dev` (see test/e2e/global-setup.ts). Run by
// `npm run test:e2e`, and by `npm test` when /usr/bin/chromium exists (scripts/test.mjs).
export default defineConfig({
  test: {
    name: "e2e",
    environment: "node",
    include: ["test/e2e/**/*.test.ts"],
    globalSetup: ["test/e2e/global-setup.ts"],
    // One browser and one server at a time: the machine is small and shared.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
