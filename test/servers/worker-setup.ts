/**
 * vitest globalSetup of the worker project (runs in Node, before workerd starts): the adapter tests'
 * upstreams on 127.0.0.1, their URLs handed to the tests with provide() / inject().
 *   httpApi  test/servers/http-api.ts (echo, slow, fail, 429, redirect …)
 *   mcp      test/servers/mcp-server.ts (the official SDK's server)
 *   meter    arrivals per bucket with their times, and a view of what the MCP server received
 *   everything  the MCP reference server (test/servers/everything.ts), started and stopped by the test
 *   reference   a second reference server, always running, for the tests that call its tools
 *   v2       the SDK v2 server in each era (test/servers/mcp-v2-server.ts)
 *   tasks    a 2026-07-28 server that answers with tasks (test/servers/mcp-tasks-server.ts)
 *   hung     accepts connections and never answers (test/servers/hung.ts)
 *   latches  requests held until the test opens their latch (test/servers/latch.ts)
 *   otlp     an OTLP/HTTP receiver (test/servers/otlp-receiver.ts); GET <origin>/received lists what it decoded
 *   connectionsUpstream  a second demo provider and an API acting for its tokens' users; a fake Slack;
 *                        a token exchange server (RFC 8693) and an API acting for its tokens' users
 * and the token lab (test/servers/token-lab.ts: key sets, signed and forged tokens, a scripted OpenID
 * provider), its URL provided as "tokenLab", and the demo OpenID provider (scripts/idp/demo-idp.ts) as "idp".
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { startDemoIdp } from "../../scripts/idp/demo-idp";
import { startConnectionsApi } from "./connections-api";
import { startEverything } from "./everything";
import { startFakeSlack } from "./fake-slack";
import { startHttpApi } from "./http-api";
import { startHungServer } from "./hung";
import { startLatches } from "./latch";
import { startMcpServer, type McpTestServer } from "./mcp-server";
import { startOtlpReceiver } from "./otlp-receiver";
import { startTasksServer } from "./mcp-tasks-server";
import { startV2Server } from "./mcp-v2-server";
import { startTokenExchange } from "./token-exchange";
import { startTokenLab } from "./token-lab";
import { WORKERD_TEST_SECRETS } from "../fixtures/workerd-secrets";
import "./upstreams-context";

/**
 * /m/<bucket>?status=&retry=   record the arrival, answer `status` (default 200) with Retry-After `retry`
 * /log/<bucket>                the bucket's arrival times (ms since epoch)
 * /mcp-headers?marker=         the headers of the requests the MCP server received on URLs containing `marker`
 *                              (a test's own marker: other files call the same server at the same time)
 */
async function startMeter(mcp: McpTestServer) {
  const arrivals = new Map<string, number[]>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const [, kind, bucket = ""] = url.pathname.split("/");
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    if (kind === "m") {
      const times = arrivals.get(bucket) ?? [];
      times.push(Date.now());
      arrivals.set(bucket, times);
      const retry = url.searchParams.get("retry");
      return send(
        Number(url.searchParams.get("status") ?? 200),
        { bucket, n: times.length },
        retry ? { "retry-after": retry } : {},
      );
    }
    if (kind === "log") return send(200, arrivals.get(bucket) ?? []);
    if (kind === "mcp-headers") {
      const marker = url.searchParams.get("marker");
      if (!marker) return send(400, { error: "marker required" });
      return send(
        200,
        mcp.requests.filter((r) => r.url.includes(marker)).map((r) => r.headers),
      );
    }
    send(404, { error: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** Where the demo provider may send people back: the workerd tests' origin, and an https host of a test tenant. */
export const IDP_REDIRECT_URIS = ["http://127.0.0.1:8787/auth/callback", "https://people.acme.test/auth/callback"];

/** The Slack app toolgate is the client of, at the fake Slack (test/servers/fake-slack.ts). */
const SLACK_CLIENT = { id: "1234.5678", secret: "slack-client-secret-0123456789" };
/** toolgate as the token exchange server's client, and the app tokens it trusts (the token lab's "exchange-app"). */
const EXCHANGE_CLIENT = { id: "toolgate-exchange", secret: "exchange-client-secret-0123456789" };
const EXCHANGE_TRUST = { set: "exchange-app", issuer: "https://chat.test/exchange-app", audience: "toolgate-exchange" };

export default async function setup(project: TestProject) {
  const httpApi = await startHttpApi();
  const mcp = await startMcpServer();
  const meter = await startMeter(mcp);
  const everything = await startEverything();
  const reference = await startEverything();
  const started = await fetch(`${reference.control}/start`, { method: "POST" });
  if (!started.ok) throw new Error(`the reference server did not start: ${await started.text()}`);
  const v2 = {
    dual: await startV2Server("dual"),
    modern: await startV2Server("modern"),
    legacy: await startV2Server("legacy"),
  };
  const tasks = await startTasksServer();
  const hung = await startHungServer();
  const latches = await startLatches();
  const tokenLab = await startTokenLab();
  const otlp = await startOtlpReceiver();
  // Callbacks of the workerd tests' origin (BASE) and of an https host the tests name in a tenant's hosts.
  const idp = await startDemoIdp({
    redirectUris: [...IDP_REDIRECT_URIS],
    clientSecret: WORKERD_TEST_SECRETS.DEMO_IDP_SECRET,
  });
  // A second provider, upstream of connections (refresh tokens; access tokens of 90 s), and its API.
  const upstreamIdp = await startDemoIdp({
    redirectUris: ["http://127.0.0.1:8787/connections/callback"],
    refreshTokens: { accessTokenSeconds: 90 },
    clientSecret: WORKERD_TEST_SECRETS.UPSTREAM_CLIENT_SECRET,
  });
  const connectionsApi = await startConnectionsApi(`${upstreamIdp.url}/me`);
  const slack = await startFakeSlack(SLACK_CLIENT);
  // It trusts the app's user tokens and the demo provider's ID tokens (toolgate's console sign-ins).
  const exchange = await startTokenExchange(EXCHANGE_CLIENT, [
    { ...EXCHANGE_TRUST, jwksUri: `${tokenLab.url}/sets/${EXCHANGE_TRUST.set}/jwks` },
    { issuer: idp.url, audience: idp.clientId, jwksUri: `${idp.url}/jwks` },
  ]);
  const exchangeApi = await startConnectionsApi(`${exchange.url}/me`);
  project.provide("connectionsUpstream", {
    idp: { url: upstreamIdp.url, clientId: upstreamIdp.clientId, clientSecret: upstreamIdp.clientSecret },
    api: connectionsApi.url,
    slack: { url: slack.url, clientId: SLACK_CLIENT.id, clientSecret: SLACK_CLIENT.secret },
    exchange: {
      url: exchange.url,
      clientId: EXCHANGE_CLIENT.id,
      clientSecret: EXCHANGE_CLIENT.secret,
      api: exchangeApi.url,
      trust: EXCHANGE_TRUST,
    },
  });
  project.provide("upstreams", {
    httpApi: httpApi.url,
    mcp: mcp.url,
    meter: meter.url,
    everything: { url: everything.url, control: everything.control },
    reference: reference.url,
    v2: { dual: v2.dual.url, modern: v2.modern.url, legacy: v2.legacy.url },
    tasks: tasks.url,
    hung: hung.url,
    latches: latches.url,
    otlp: { traces: otlp.url, metrics: otlp.metricsUrl },
  });
  project.provide("tokenLab", tokenLab.url);
  project.provide("idp", { url: idp.url, clientId: idp.clientId, clientSecret: idp.clientSecret });
  return async () => {
    const servers = [
      ...[httpApi, mcp, meter, everything, reference, v2.dual, v2.modern, v2.legacy, tasks, hung, latches],
      tokenLab,
      otlp,
      { close: idp.stop },
      { close: upstreamIdp.stop },
      connectionsApi,
      slack,
      exchange,
      exchangeApi,
    ];
    await Promise.all(servers.map((server) => server.close()));
  };
}
