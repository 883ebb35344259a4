// What test/servers/worker-setup.ts provides to the worker tests (inject("upstreams")).
declare module "vitest" {
  export interface ProvidedContext {
    upstreams: {
      httpApi: string;
      mcp: string;
      meter: string;
      /** The MCP reference server's endpoint and its control server (test/servers/everything.ts). */
      everything: { url: string; control: string };
      /** An MCP URL whose server accepts connections and never answers. */
      hung: string;
      /** GET /hold/<id> answers once POST /open/<id>; GET /arrivals/<id> counts them (test/servers/latch.ts). */
      latches: string;
    };
  }
}
export {};
