import { sleepTool } from "./lib/sleep";

export default sleepTool(
  "sleep_pool",
  "Sleep for ms milliseconds. At most three sleeps run at once across the tenant.",
  3,
);
