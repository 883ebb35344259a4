import { describe, expect, it } from "vitest";
import { httpToolsConfig } from "../../../bench/lib/tenant-growth";
import { ORDERS } from "../../../tools/lib/shop";
import { DEMO_CONFIG } from "../../../worker/demo/tenant";
import { CODER, CODER_KEY, codeOrders, plainOrders, type SendCalls } from "../../servers/orders-model";
import { ADMIN_KEY, json, request } from "../helpers/requests";

/** Ada Lovelace's three most recent orders and their total, from the shop's data. */
const ada = ORDERS.filter((order) => order.customerId === "cus_1")
  .slice(-3)
  .reverse();
const EXPECTED = {
  customer: "cus_1",
  orders: ada.map((order) => order.id),
  totalCents: ada.reduce((sum, order) => sum + order.totalCents, 0),
};

/** The scripted model's way to the Worker: POST /v1/calls/openai with its key. */
function sender(env: Record<string, string>, key?: string): SendCalls {
  return async (calls) => {
    const res = await request("/v1/calls/openai", { env, body: { tool_calls: calls }, ...(key ? { key } : {}) });
    return (await json(res)).messages;
  };
}

const listing = async (env: Record<string, string>, key?: string) =>
  (await request("/v1/tools/openai", { env, ...(key ? { key } : {}) })).text();

describe("the orders task, code mode against plain tool calls", () => {
  it("the demo: 4 round trips with plain calls, 2 in code mode, the same answer", async () => {
    const config = { ...DEMO_CONFIG, name: "orders-demo", keys: [...DEMO_CONFIG.keys, CODER_KEY], codeMode: {} };
    const env = { TOOLGATE_CONFIG: JSON.stringify({ ...config, codeMode: { default: "off" } }) };
    expect(EXPECTED.orders).toHaveLength(3);
    const plain = await plainOrders(await listing(env), sender(env));
    expect(plain.answer).toEqual(EXPECTED);
    expect(plain.trips).toBe(4);
    const codeListing = await listing(env, CODER);
    expect(JSON.parse(codeListing).tools).toHaveLength(1);
    const code = await codeOrders(codeListing, sender(env, CODER));
    expect(code.answer).toEqual(EXPECTED);
    expect(code.trips).toBe(2);
  });

  it("the 1,000-tool tenant: search mode first, or a key's code tool over all or over the shop", async () => {
    const growth = httpToolsConfig(1000);
    const config = {
      ...growth,
      name: "orders-growth",
      tools: ["tag:demo"],
      keys: [...growth.keys, CODER_KEY],
      search: { keys: ["dev-call"] },
      codeMode: { default: "off" },
    };
    const env = { TOOLGATE_CONFIG: JSON.stringify(config) };
    const plain = await plainOrders(await listing(env), sender(env), "search_tools");
    expect(plain.answer).toEqual(EXPECTED);
    // One search finds the three tools: one round trip more than the demo's.
    expect(plain.trips).toBe(5);
    // The key's code tool declares all 1,000 tools; the endpoint's, the shop's three.
    const whole = JSON.parse(await listing(env, CODER)).tools[0].function.description as string;
    expect(whole).toContain("api_0999_get_item(");
    const code = await codeOrders(await listing(env, CODER), sender(env, CODER));
    expect(code.answer).toEqual(EXPECTED);
    expect(code.trips).toBe(2);
    const body = { name: "shop-coder", scopes: ["call"], tools: ["find_customer", "list_orders", "get_order"] };
    const created = await request("/v1/keys", { env, key: ADMIN_KEY, body: { ...body, codeMode: "only" } });
    const { secret } = await json(created);
    const shopListing = await listing(env, secret);
    expect(shopListing).not.toContain("api_0999_get_item");
    const shop = await codeOrders(shopListing, sender(env, secret));
    expect(shop.answer).toEqual(EXPECTED);
    expect(shop.trips).toBe(2);
  });
});
