import * as v from "valibot";
import { defineTool, toolError } from "../src";
import { isPlainObject } from "../src/json";

/**
 * Asks the person who made the call to pick one of a few options (ctx.ask: an MCP form elicitation)
 * and returns what they chose, or that they declined. An HTTP caller answers through the call's
 * record (POST /v1/calls/:id/input); a caller that cannot be asked gets the question back instead:
 * the call ends input_required, listing it.
 */
export default defineTool({
  name: "pick_option",
  description:
    "Ask the user to pick one of a few options (or to confirm, with options like yes/no), and return the choice.",
  input: v.object({
    question: v.pipe(v.string(), v.minLength(1), v.maxLength(500), v.description("What to ask the user")),
    options: v.pipe(
      v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
      v.minLength(2),
      v.maxLength(10),
      v.description("The choices offered, 2 to 10"),
    ),
  }),
  output: v.object({ answered: v.picklist(["accept", "decline", "cancel"]), choice: v.optional(v.string()) }),
  policy: { readOnly: true, idempotent: true },
  render: { call: "Ask: {question}" },
  tags: ["demo"],
  run: async ({ question, options: given }, ctx) => {
    // Offered once each: a form's enum lists distinct values.
    const options = [...new Set(given)];
    const requestedSchema = {
      type: "object",
      properties: { choice: { type: "string", title: "Your choice", enum: options } },
      required: ["choice"],
    };
    const answer = await ctx.ask("choice", {
      method: "elicitation/create",
      params: { message: question, requestedSchema },
    });
    const action = isPlainObject(answer) ? answer.action : undefined;
    if (action === "decline" || action === "cancel") return { answered: action } as const;
    const choice = isPlainObject(answer) && isPlainObject(answer.content) ? answer.content.choice : undefined;
    if (action !== "accept" || typeof choice !== "string" || !options.includes(choice)) {
      throw toolError("tool_error", `The answer is not one of the options offered (${options.join(", ")}).`);
    }
    return { answered: "accept", choice } as const;
  },
});
