// What test/servers/worker-setup.ts provides to the worker tests (inject("upstreams")).
declare module "vitest" {
  export interface ProvidedContext {
    upstreams: { httpApi: string; mcp: string; meter: string };
  }
}
export {};
