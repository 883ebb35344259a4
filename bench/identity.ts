/**
 * The budget of issue 29: a call that carries a user token costs at most 10% more CPU than the same
 * call with the key alone (verified tokens are kept per isolate until they expire:
 * worker/identity/lazy/token-cache.ts). One wrangler dev of the demo tenant (read-only records written after
 * the answer, as bench/http.ts's read-only call) with a key `chat` that may act for users
 * (`actAs: "header"`) and `identity.appTokens` trusting a token issuer on loopback
 * (bench/lib/token-issuer.ts: ES256, jose). Alternating rounds, medians of CPU time per request of
 * the server's process tree (bench/lib/rounds.ts):
 *
 *   user token       an `add` call with the key `chat` and one Toolgate-User-Token, sent with every call
 *                    (kept after the first)
 *   key alone        the same call with the key alone
 *   Toolgate-User    the same with a plain user id
 *   new token each   the same with another token each call (verified each time; what the cache saves)
 *   /log-batch       the platform fixture's log, answer, batched write (as bench/http.ts)
 *
 * Target: user token ≤ 1.10 × key alone by CPU/request; the exit code is 1 when missed.
 * Run: node scripts/run-ts.mjs bench/identity.ts   (ROUNDS, SECONDS, CONNECTIONS to tune; ~2 minutes)
 */
import { createHash } from "node:crypto";
import { cpSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { DEMO_CONFIG } from "../worker/demo/tenant";
import { ADD_CALL, sameRequestTarget, type Target, toolgateOpenAiTarget } from "./lib/http-targets";
import { median } from "./lib/load";
import { alternateRounds, type Measured } from "./lib/rounds";
import { startTokenIssuer } from "./lib/token-issuer";
import { writeWranglerConfig } from "./lib/wrangler-config";
import { snapshot, startDev, stopDev, waitReady } from "./lib/wrangler-dev";

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const BUDGET = 1.1;
const dir = resolve(".tmp/bench-identity");

const CHAT_KEY = "bench-chat-key";
/**
 * Tokens the "new token each" route cycles through: more than the cache keeps (1,024), so a token
 * comes round again only after the cache let it go, and every call verifies one.
 */
const FRESH_TOKENS = 4096;

async function main(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const issuer = await startTokenIssuer();
  const config = {
    ...DEMO_CONFIG,
    readOnlyRecords: "after-answer",
    keys: [
      ...(DEMO_CONFIG.keys ?? []),
      { name: "chat", hash: createHash("sha256").update(CHAT_KEY).digest("hex"), scopes: ["call"], actAs: "header" },
    ],
    identity: {
      appTokens: [{ issuer: issuer.issuer, audience: issuer.audience, jwksUri: issuer.jwksUri, algorithms: ["ES256"] }],
      // Every user a role (rights computed on each call); no ratePerMinute: a limit is a Durable Object
      // round trip, which the keys bench measures.
      roles: { everyone: { groups: ["*"] } },
    },
  };
  const platformApp = resolve(dir, "platform");
  cpSync(resolve("bench/fixtures/platform"), platformApp, { recursive: true });
  const app = snapshot(dir);
  const wranglerConfig = writeWranglerConfig(app, resolve(dir, "toolgate.json"), {
    TOOLGATE_DEMO: "false",
    TOOLGATE_CONFIG: JSON.stringify(config),
  });
  const servers = [
    await startDev({ app, home: resolve(dir, "home"), config: wranglerConfig }),
    await startDev({
      app: platformApp,
      home: resolve(dir, "routed-home"),
      config: resolve(platformApp, "wrangler-assets.toml"),
    }),
  ];
  const [toolgate, routed] = servers as [(typeof servers)[0], (typeof servers)[0]];
  const users = Array.from({ length: 50 }, (_, i) => `user-${i}`);
  const fresh = await Promise.all(
    Array.from({ length: FRESH_TOKENS }, (_, i) => issuer.mint(users[i % users.length]!)),
  );
  let next = 0;
  const call = (name: string, headers: Record<string, string> = {}): Target => {
    const target = toolgateOpenAiTarget(name, toolgate.url, 1, ADD_CALL);
    return { ...target, headers: { ...target.headers, authorization: `Bearer ${CHAT_KEY}`, ...headers } };
  };
  const alone = call("toolgate: add call, key alone");
  // The two compared side by side, so the alternation puts each before and after the other alike.
  const targets: Target[] = [
    call("toolgate: add call, one user token (kept)", { "toolgate-user-token": await issuer.mint("alice") }),
    alone,
    call("toolgate: add call, Toolgate-User", { "toolgate-user": "alice" }),
    {
      ...call("toolgate: add call, a new user token each (verified)"),
      freshHeaders: () => ({ "toolgate-user-token": fresh[next++ % FRESH_TOKENS]! }),
    },
    sameRequestTarget("platform, routed: /log-batch", routed.url, "/log-batch", alone),
  ];
  const measured: Measured[] = targets.map((target) => ({
    target,
    server: target.url === toolgate.url ? toolgate : routed,
    results: [],
    cpuUs: [],
  }));
  let loads: number[];
  try {
    for (const server of servers) await waitReady(server);
    loads = await alternateRounds(measured, ROUNDS, SECONDS, CONNECTIONS);
  } finally {
    await Promise.all(servers.map(stopDev));
    await issuer.close();
  }
  const cpu = (m: Measured) => median(m.cpuUs);
  const rps = (m: Measured) => median(m.results.map((r) => r.requests.average));
  console.table(
    measured.map((m) => ({
      route: m.target.name,
      "req/s": Math.round(rps(m)),
      "p50 ms": median(m.results.map((r) => r.latency.p50)),
      "CPU µs/req": Math.round(cpu(m)),
      "CPU µs/req by round": m.cpuUs.map((us) => Math.round(us)).join(" "),
    })),
  );
  console.log(
    `${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per route, medians over rounds; ` +
      `load average ${loads.map((l) => l.toFixed(1)).join(" → ")}; the issuer's key set fetched ` +
      `${issuer.jwksFetches()} times.`,
  );
  const [token, keyAlone, header, verified] = measured as [Measured, Measured, Measured, Measured];
  const ratio = (m: Measured) => cpu(m) / cpu(keyAlone);
  for (const m of [header, verified])
    console.log(`${m.target.name}: ${ratio(m).toFixed(3)} × the key alone's CPU/request`);
  // Within each round the two ran next to each other: their ratio there is steadier than the medians' ratio.
  const paired = median(token.cpuUs.map((us, round) => us / keyAlone.cpuUs[round]!));
  console.log(`${token.target.name}, paired by round: ${paired.toFixed(3)} × the key alone's CPU/request (median)`);
  const ok = ratio(token) <= BUDGET;
  console.log(
    `${token.target.name}: ${ratio(token).toFixed(3)} × the key alone's CPU/request ` +
      `(${Math.round(cpu(token))} vs ${Math.round(cpu(keyAlone))} µs; target ≤ ${BUDGET}): ${ok ? "ok" : "MISSED"}`,
  );
  if (!ok) process.exitCode = 1;
}

await main();
