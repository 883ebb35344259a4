/**
 * Code mode on a multi-step task: "find the three most recent orders of a customer and total them"
 * (the demo shop's find_customer, list_orders, get_order), driven by the scripted model of
 * test/servers/orders-model.ts against `wrangler dev` (workerd, the Worker Loader), on the demo and
 * on a tenant of 1,000 declared HTTP tools beside the demo's (bench/lib/tenant-growth.ts). Counted:
 * model round trips, and the tokens sent to the model (o200k_base, gpt-tokenizer; every turn resends
 * the listing and the conversation so far). Each way's answer is checked against the others'.
 * Run: node scripts/run-ts.mjs bench/code-mode-orders.ts
 */
import { encode } from "gpt-tokenizer";
import {
  CODER,
  CODER_KEY,
  codeOrders,
  plainOrders,
  type OrdersAnswer,
  type OrdersRun,
  type SendCalls,
} from "../test/servers/orders-model";
import { startDevServer } from "../test/servers/wrangler-dev";
import { DEMO_CONFIG, DEMO_KEYS } from "../worker/demo/tenant";
import { httpToolsConfig } from "./lib/tenant-growth";

const SHOP = ["find_customer", "list_orders", "get_order"];

interface Row {
  tenant: string;
  way: string;
  listed: number;
  run: OrdersRun;
}

const tokens = (texts: readonly string[]) => texts.reduce((sum, text) => sum + encode(text).length, 0);

async function measure(tenant: string, config: unknown, plainKeys: { way: string; key: string; search?: string }[]) {
  const server = await startDevServer({ vars: { TOOLGATE_CONFIG: JSON.stringify(config), TOOLGATE_DEMO: "true" } });
  const headers = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });
  const send =
    (key: string): SendCalls =>
    async (calls) => {
      const res = await fetch(`${server.url}/v1/calls/openai`, {
        method: "POST",
        headers: headers(key),
        body: JSON.stringify({ tool_calls: calls }),
      });
      return ((await res.json()) as { messages: { tool_call_id: string; content: string }[] }).messages;
    };
  const listing = async (key: string) =>
    (await fetch(`${server.url}/v1/tools/openai`, { headers: headers(key) })).text();
  const rows: Row[] = [];
  try {
    for (const { way, key, search } of plainKeys) {
      const listed = await listing(key);
      rows.push({ tenant, way, listed: encode(listed).length, run: await plainOrders(listed, send(key), search) });
    }
    const whole = await listing(CODER);
    rows.push({
      tenant,
      way: "code mode, the code tool alone",
      listed: encode(whole).length,
      run: await codeOrders(whole, send(CODER)),
    });
    const created = await fetch(`${server.url}/v1/keys`, {
      method: "POST",
      headers: headers(DEMO_KEYS.admin),
      body: JSON.stringify({ name: "shop-coder", scopes: ["call"], tools: SHOP, codeMode: "only" }),
    });
    const { secret } = (await created.json()) as { secret: string };
    const shop = await listing(secret);
    const way = "code mode, a key of the shop's 3 tools";
    rows.push({ tenant, way, listed: encode(shop).length, run: await codeOrders(shop, send(secret)) });
  } finally {
    await server.stop();
  }
  return rows;
}

const demo = { ...DEMO_CONFIG, keys: [...DEMO_CONFIG.keys, CODER_KEY], codeMode: { default: "off" } };
const growth = httpToolsConfig(1000);
const large = {
  ...growth,
  tools: ["tag:demo"],
  keys: [...growth.keys, CODER_KEY],
  search: { keys: ["dev-call"] },
  codeMode: { default: "off" },
};
const rows = [
  ...(await measure("demo", demo, [{ way: "plain calls, every tool listed", key: DEMO_KEYS.call }])),
  ...(await measure("1,000 tools", large, [
    { way: "plain calls, every tool listed", key: DEMO_KEYS.admin },
    { way: "plain calls, search mode", key: DEMO_KEYS.call, search: "search_tools" },
  ])),
];

const first: OrdersAnswer = rows[0]!.run.answer;
for (const row of rows)
  if (JSON.stringify(row.run.answer) !== JSON.stringify(first))
    throw new Error(
      `${row.tenant}, ${row.way}: answered ${JSON.stringify(row.run.answer)}, not ${JSON.stringify(first)}`,
    );
console.log(`answer: ${JSON.stringify(first)}`);
console.log("| tenant | way | round trips | tokens sent | listing tokens |");
console.log("| --- | --- | --- | --- | --- |");
for (const { tenant, way, listed, run } of rows)
  console.log(
    `| ${tenant} | ${way} | ${run.trips} | ${tokens(run.sent).toLocaleString("en-US")} | ${listed.toLocaleString("en-US")} |`,
  );
