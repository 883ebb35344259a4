/**
 * In-memory wake-ups inside one ledger shard: requests waiting for a call to finish, for a cancel,
 * or for new events. Lost on eviction, which is fine: every waiter re-reads SQL when it wakes or
 * times out, and its caller retries with a new stub.
 */
export class Waiters {
  private readonly byKey = new Map<string, Set<(notified: boolean) => void>>();

  /** Resolves true when notified, false after `ms`. */
  wait(key: string, ms: number): Promise<boolean> {
    if (ms <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      let set = this.byKey.get(key);
      if (!set) this.byKey.set(key, (set = new Set()));
      const done = (notified: boolean) => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.byKey.get(key) === set) this.byKey.delete(key);
        resolve(notified);
      };
      const timer = setTimeout(() => done(false), ms);
      set.add(done);
    });
  }

  notify(key: string): void {
    const set = this.byKey.get(key);
    if (set) for (const done of [...set]) done(true);
  }
}

/** Woken when a call changes in a way waiters care about: it finished, or a cancel was requested. */
export const callKey = (callId: string) => `call:${callId}`;
export const EVENTS_KEY = "events";
