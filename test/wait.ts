/**
 * Waiting in tests, in Node and in workerd alike: for a state, never for a fixed time. A test that
 * sleeps "long enough" for something to happen passes only while the machine is fast enough; these
 * helpers wait exactly until what the test needs holds, however slow the machine is.
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls until `check` holds (asynchronous work lands in its own time). Bounded: it fails naming
 * `what` after `timeoutMs`, a bound for hangs only (far above what any check needs when it works).
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting until ${what}`);
    await pause(5);
  }
}

/**
 * Resolves once the clock has passed `at`: a deadline the object under test reported itself (a
 * lease's expiresAt, an approval's expiry, a row's deadline), so the wait is exact, not a guess.
 * workerd moves its clock only between I/O events, so this checks the clock again after each timer.
 */
export async function waitPast(at: number): Promise<void> {
  while (Date.now() <= at) await pause(at - Date.now() + 1);
}

/** The next turn of the event loop: lets queued callbacks run (it waits for no time to pass). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** A latch: a fixture opens it to tell the test a state was reached ("the tool has started"). */
export function latch(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
