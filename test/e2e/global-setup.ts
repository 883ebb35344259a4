import type { TestProject } from "vitest/node";
import { startDevServer, type DevServer } from "../servers/wrangler-dev";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

let server: DevServer | undefined;

/**
 * Serves the console and the API with `wrangler dev` (demo tenant, fresh state); its build
 * command builds the console when its sources changed.
 */
export async function setup(project: TestProject): Promise<void> {
  server = await startDevServer();
  project.provide("baseUrl", server.url);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
