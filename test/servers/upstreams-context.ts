// What test/servers/worker-setup.ts provides to the worker tests (inject("upstreams"), inject("tokenLab")).
declare module "vitest" {
  export interface ProvidedContext {
    upstreams: {
      httpApi: string;
      mcp: string;
      meter: string;
      /** The MCP reference server's endpoint and its control server (test/servers/everything.ts). */
      everything: { url: string; control: string };
      /** Another reference server, running for the whole run (nobody stops it). */
      reference: string;
      /** The SDK v2 server: both eras, 2026-07-28 only, 2025 only (test/servers/mcp-v2-server.ts). */
      v2: { dual: string; modern: string; legacy: string };
      /** A 2026-07-28 server answering tools/call with tasks (test/servers/mcp-tasks-server.ts). */
      tasks: string;
      /** An MCP URL whose server accepts connections and never answers. */
      hung: string;
      /** GET /hold/<id> answers once POST /open/<id>; GET /arrivals/<id> counts them (test/servers/latch.ts). */
      latches: string;
      /** An OTLP/HTTP receiver's endpoints; GET <origin>/received: what it decoded (otlp-receiver.ts). */
      otlp: { traces: string; metrics: string };
    };
    /** The token lab's origin (test/servers/token-lab.ts): key sets, tokens, a scripted OpenID provider. */
    tokenLab: string;
    /** The demo OpenID provider (scripts/idp/demo-idp.ts): alice and bob, for toolgate's callbacks. */
    idp: { url: string; clientId: string; clientSecret: string };
    /** A second demo provider, upstream of connections (refresh tokens), and an API acting for its tokens' users. */
    connectionsUpstream: {
      idp: { url: string; clientId: string; clientSecret: string };
      api: string;
      /** Slack's OAuth v2 user tokens and users.profile.get (test/servers/fake-slack.ts). */
      slack: { url: string; clientId: string; clientSecret: string };
      /**
       * An RFC 8693 token exchange server (test/servers/token-exchange.ts) trusting the token lab's set
       * `trust.set` (issuer, audience), and an API acting for the tokens it issues.
       */
      exchange: {
        url: string;
        clientId: string;
        clientSecret: string;
        api: string;
        trust: { set: string; issuer: string; audience: string };
      };
    };
  }
}
export {};
