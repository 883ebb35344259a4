import * as v from "valibot";
import { defineTool } from "../src";

export default defineTool({
  name: "send_message",
  description: "Send a message to someone (pretend). High risk: every call waits for an admin's approval.",
  input: v.object({ to: v.pipe(v.string(), v.minLength(1), v.maxLength(200)), text: v.pipe(v.string(), v.maxLength(10_000)) }),
  output: v.object({ delivered: v.boolean(), to: v.string(), messageId: v.string() }),
  policy: { risk: "high", idempotent: false, approval: "always" },
  tags: ["demo", "approval"],
  run: ({ to }, ctx) => ({ delivered: true, to, messageId: `msg_${ctx.callId}` }),
});
