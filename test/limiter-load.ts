import type { Limiter, SlotRequest } from "../src/gates/limiter";

/**
 * Fires `count` acquires at once; each granted call counts itself as running for a few ms, then
 * releases. Answers the most calls seen running at once and each call's outcome ("ran" or a code).
 */
export async function loadLimiter(
  limiter: Limiter,
  request: (i: number) => SlotRequest,
  count = 200,
): Promise<{ maxRunning: number; outcomes: string[] }> {
  let running = 0;
  let maxRunning = 0;
  const outcomes = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const grant = await limiter.acquire(request(i));
      if (!grant.ok) return grant.code;
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise((r) => setTimeout(r, i % 3));
      running--;
      await grant.release();
      return "ran";
    }),
  );
  return { maxRunning, outcomes };
}
