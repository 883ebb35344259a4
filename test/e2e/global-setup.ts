import type { TestProject } from "vitest/node";
import { type DemoIdp, startDemoIdp } from "../../scripts/idp/demo-idp";
import { freePort, startDevServer, type DevServer } from "../servers/wrangler-dev";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

let server: DevServer | undefined;
let idp: DemoIdp | undefined;

/**
 * Serves the console and the API with `wrangler dev` (demo tenant, fresh state); its build
 * command builds the console when its sources changed. The demo tenant signs people in with the demo
 * identity provider (scripts/idp/demo-idp.ts: alice, bob), started first for toolgate's port.
 */
export async function setup(project: TestProject): Promise<void> {
  const port = await freePort();
  idp = await startDemoIdp({ redirectUris: [`http://127.0.0.1:${port}/auth/callback`] });
  server = await startDevServer({
    port,
    vars: { TOOLGATE_DEV_IDP: idp.url, TOOLGATE_DEV_IDP_SECRET: idp.clientSecret },
  });
  project.provide("baseUrl", server.url);
}

export async function teardown(): Promise<void> {
  await server?.stop();
  await idp?.stop();
}
