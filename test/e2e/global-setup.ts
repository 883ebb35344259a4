import { fileURLToPath } from "node:url";
import { build } from "vite";
import type { TestProject } from "vitest/node";
import { startDevServer, type DevServer } from "../servers/wrangler-dev";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

let server: DevServer | undefined;

/** Builds the console, then serves it and the API with `wrangler dev` (demo tenant, fresh state). */
export async function setup(project: TestProject): Promise<void> {
  await build({ configFile: fileURLToPath(new URL("../../web/vite.config.ts", import.meta.url)), logLevel: "warn" });
  server = await startDevServer();
  project.provide("baseUrl", server.url);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
