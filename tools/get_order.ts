import * as v from "valibot";
import { defineTool, toolError } from "../src";
import { ORDERS } from "./lib/shop";

/** One order of the demo shop (tools/lib/shop.ts): its lines and total. */
export default defineTool({
  name: "get_order",
  description: "Get one demo shop order by id: its customer, date, status, lines and total in cents.",
  input: v.object({
    orderId: v.pipe(v.string(), v.regex(/^ord_\d{1,8}$/), v.description("The order's id, as ord_1001")),
  }),
  output: v.object({
    id: v.string(),
    customerId: v.string(),
    placedAt: v.string(),
    status: v.string(),
    lines: v.array(v.object({ sku: v.string(), name: v.string(), quantity: v.number(), unitPriceCents: v.number() })),
    totalCents: v.number(),
  }),
  policy: { readOnly: true, idempotent: true, risk: "low" },
  render: { call: "Order {orderId}" },
  tags: ["demo", "shop"],
  run: ({ orderId }) => {
    const order = ORDERS.find((each) => each.id === orderId);
    if (!order) throw toolError("tool_error", `No order ${orderId}.`);
    return order;
  },
});
