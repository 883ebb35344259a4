import { defineConfig } from "vitest/config";

// The packages as people install them (test/packages/): packed tarballs, a project created from the
// starter outside the repository, a Vite app in Chromium. Run by .ci/run (npm run test:packages).
export default defineConfig({
  test: {
    name: "packages",
    environment: "node",
    include: ["test/packages/**/*.test.ts"],
    globalSetup: ["test/packages/setup.ts"],
    // One suite at a time: each installs packages and builds, and the machine is small and shared.
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
