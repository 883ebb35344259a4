import { expect, it } from "vitest";
import { startupFunctions } from "../../../bench/lib/startup-functions";

/**
 * Modules whose tables are built at their first use (the egress check's address ranges, SHA-256's
 * constants): nothing of theirs runs while the Worker starts, whose CPU is budgeted (docs/performance.md, Cold start).
 */
const FIRST_USE_ONLY = ["src/ip.ts", "src/sha256.ts"];

it("the Worker's startup runs no function of the modules that wait for their first use", async () => {
  const ran = await startupFunctions("worker/index.ts");
  // What startup does run is seen: the app is built at import.
  expect(ran.some((fn) => fn.source === "worker/app.ts" && fn.name === "createApp")).toBe(true);
  expect(ran.filter((fn) => FIRST_USE_ONLY.includes(fn.source)).map((fn) => `${fn.source} ${fn.name}`)).toEqual([]);
}, 60_000);
