import * as v from "valibot";
import { createRegistry, type Registry } from "../../src/registry";
import { defineTool } from "../../src/tool";

/**
 * Tools that run in this page, by the core's own pipeline (validation, policy, records), beside the
 * tenant's tools in the Playground's batches. They can know what only the browser knows.
 */
const browserClock = defineTool({
  name: "browser_clock",
  description: "The current date and time where the user is: their browser's clock, time zone and language.",
  input: v.object({}),
  output: v.object({ iso: v.string(), local: v.string(), timeZone: v.string(), language: v.string() }),
  policy: { readOnly: true, idempotent: false, risk: "low" },
  render: { call: "The user's clock" },
  run: () => {
    const now = new Date();
    return {
      iso: now.toISOString(),
      local: now.toLocaleString(),
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      language: navigator.language,
    };
  },
});

export const BROWSER_TOOLS: Registry = createRegistry([browserClock]);
