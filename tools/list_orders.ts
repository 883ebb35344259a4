import * as v from "valibot";
import { defineTool } from "../src";
import { ORDERS } from "./lib/shop";

/** A customer's orders in the demo shop (tools/lib/shop.ts), newest first, without their lines. */
export default defineTool({
  name: "list_orders",
  description: "List a demo shop customer's orders, newest first: id, date placed and status (get_order has the rest).",
  input: v.object({
    customerId: v.pipe(v.string(), v.regex(/^cus_\d{1,6}$/), v.description("The customer's id, as cus_1")),
    limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50), v.description("At most")), 20),
  }),
  output: v.object({
    orders: v.array(v.object({ id: v.string(), placedAt: v.string(), status: v.string() })),
  }),
  policy: { readOnly: true, idempotent: true, risk: "low" },
  render: { call: "Orders of {customerId}", result: "table" },
  tags: ["demo", "shop"],
  run: ({ customerId, limit }) => ({
    orders: ORDERS.filter((order) => order.customerId === customerId)
      .reverse()
      .slice(0, limit)
      .map(({ id, placedAt, status }) => ({ id, placedAt, status })),
  }),
});
