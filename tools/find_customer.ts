import * as v from "valibot";
import { defineTool } from "../src";
import { CUSTOMERS } from "./lib/shop";

/** The demo shop's customers (tools/lib/shop.ts), found by name or email. */
export default defineTool({
  name: "find_customer",
  description: "Find the demo shop's customers whose name or email contains the query (case-insensitive).",
  input: v.object({
    query: v.pipe(v.string(), v.minLength(1), v.maxLength(100), v.description("Part of a name or an email")),
  }),
  output: v.object({ customers: v.array(v.object({ id: v.string(), name: v.string(), email: v.string() })) }),
  policy: { readOnly: true, idempotent: true, risk: "low" },
  render: { call: "Find customers matching {query}", result: "table" },
  tags: ["demo", "shop"],
  run: ({ query }) => {
    const needle = query.toLowerCase();
    const found = (text: string) => text.toLowerCase().includes(needle);
    return { customers: CUSTOMERS.filter((customer) => found(customer.name) || found(customer.email)) };
  },
});
