/**
 * A scripted model for the orders task ("find the three most recent orders of a customer and total
 * them", over the demo shop's tools): it drives toolgate's OpenAI-shaped API as a model would, one
 * round trip per turn, reading each answer to choose its next calls. Plain: (in search mode, a search
 * first) find_customer, list_orders, then get_order for each of the three at once, then the answer.
 * Code mode: one program, then the answer. Each turn's payload (the listing and the conversation so
 * far) is kept, for a bench to count its tokens. Web-standard only: it runs in workerd and in Node.
 */

/** One POST /v1/calls/openai of these tool calls: the answer's tool messages, in order. */
export type SendCalls = (calls: readonly ToolCall[]) => Promise<readonly { tool_call_id: string; content: string }[]>;

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** What the model answers the user: the three orders, newest first, and their total in cents. */
export interface OrdersAnswer {
  customer: string;
  orders: string[];
  totalCents: number;
}

export interface OrdersRun {
  answer: OrdersAnswer;
  /** Model round trips: one per turn, the final answer's included. */
  trips: number;
  /** What each turn sent the model: the listing, then the conversation as JSON. */
  sent: string[];
}

/** A configured call key (its secret, then its configuration) whose listings show only the code tool. */
export const CODER = "code-only-key";
export const CODER_KEY = {
  name: "coder",
  hash: "9e4bb07ec97351261d6b2cbea05a815730973b6d600f80899204ab79d8450d63",
  scopes: ["call"],
  codeMode: "only",
};

export const ORDERS_PROMPT = "Find the three most recent orders of Ada Lovelace and total them.";

/** The program the model writes in code mode (`tools` holds the caller's tools). */
export const ORDERS_PROGRAM = [
  'const { customers } = await tools.find_customer({ query: "Ada Lovelace" });',
  "const { orders } = await tools.list_orders({ customerId: customers[0].id, limit: 3 });",
  "const details = await Promise.all(orders.map((o) => tools.get_order({ orderId: o.id })));",
  "const totalCents = details.reduce((sum, o) => sum + o.totalCents, 0);",
  "return { customer: customers[0].id, orders: details.map((o) => o.id), totalCents };",
].join("\n");

class Conversation {
  readonly messages: unknown[] = [{ role: "user", content: ORDERS_PROMPT }];
  readonly sent: string[] = [];
  /** Call ids are the tenant's: each conversation's its own. */
  readonly #prefix = crypto.randomUUID().slice(0, 8);
  #ids = 0;
  constructor(
    readonly listing: string,
    readonly send: SendCalls,
  ) {}

  /** One turn that calls tools: the model reads everything so far, then its calls' answers are added. */
  async call(calls: readonly { name: string; args: unknown }[]): Promise<unknown[]> {
    this.turn();
    const made: ToolCall[] = calls.map(({ name, args }) => ({
      id: `call_${this.#prefix}_${++this.#ids}`,
      type: "function",
      function: { name, arguments: JSON.stringify(args) },
    }));
    this.messages.push({ role: "assistant", tool_calls: made });
    const answers = await this.send(made);
    return made.map((call) => {
      const content = answers.find((answer) => answer.tool_call_id === call.id)?.content;
      if (content === undefined) throw new Error(`no answer to ${call.function.name}`);
      this.messages.push({ role: "tool", tool_call_id: call.id, content });
      return JSON.parse(content) as unknown;
    });
  }

  /** The last turn: the model reads everything and answers. */
  finish(answer: OrdersAnswer): OrdersRun {
    this.turn();
    this.messages.push({ role: "assistant", content: JSON.stringify(answer) });
    return { answer, trips: this.sent.length / 2, sent: this.sent };
  }

  private turn(): void {
    this.sent.push(this.listing, JSON.stringify(this.messages));
  }
}

/** A tool's answer as the model reads it, checked to be the object it needs. */
function read<T>(value: unknown, field: string): T {
  if (typeof value !== "object" || value === null || !(field in value))
    throw new Error(`the model expected ${field} in ${JSON.stringify(value)}`);
  return (value as Record<string, T>)[field]!;
}

/**
 * Plain tool calls. With `search` (the search tool's name, in search mode), the model first searches
 * for the tools it needs, once more for each one a search did not find.
 */
export async function plainOrders(listing: string, send: SendCalls, search?: string): Promise<OrdersRun> {
  const chat = new Conversation(listing, send);
  if (search) {
    const needed = ["find_customer", "list_orders", "get_order"];
    const [found] = await chat.call([{ name: search, args: { query: "find a customer and their orders" } }]);
    const known = new Set(read<{ name: string }[]>(found, "tools").map((tool) => tool.name));
    for (const name of needed.filter((each) => !known.has(each))) {
      const [again] = await chat.call([{ name: search, args: { query: name.replace("_", " "), limit: 1 } }]);
      if (!read<{ name: string }[]>(again, "tools").some((tool) => tool.name === name))
        throw new Error(`the search did not find ${name}`);
    }
  }
  const [found] = await chat.call([{ name: "find_customer", args: { query: "Ada Lovelace" } }]);
  const customer = read<{ id: string }[]>(found, "customers")[0]!.id;
  const [listed] = await chat.call([{ name: "list_orders", args: { customerId: customer, limit: 3 } }]);
  const recent = read<{ id: string; placedAt: string }[]>(listed, "orders")
    .sort((a, b) => b.placedAt.localeCompare(a.placedAt))
    .slice(0, 3);
  const details = await chat.call(recent.map((order) => ({ name: "get_order", args: { orderId: order.id } })));
  const totalCents = details.reduce<number>((sum, order) => sum + read<number>(order, "totalCents"), 0);
  return chat.finish({ customer, orders: recent.map((order) => order.id), totalCents });
}

/** Code mode: one program through the code tool, then the answer read from its result. */
export async function codeOrders(listing: string, send: SendCalls, tool = "run_code"): Promise<OrdersRun> {
  const chat = new Conversation(listing, send);
  const [ran] = await chat.call([{ name: tool, args: { code: ORDERS_PROGRAM } }]);
  return chat.finish(read<OrdersAnswer>(ran, "result"));
}
