import { runInDurableObject } from "cloudflare:test";

/**
 * Test-only fault seams; nothing here exists in the Worker. Stub faults wrap a namespace the test
 * hands to the app as its env (the Worker's own bindings are untouched); storage faults patch one
 * live object's `ctx.storage.transactionSync` through runInDurableObject, until restored or evicted.
 */

export type PlatformFault = "retryable" | "overloaded" | "bug";

/**
 * An error as a stub throws it: the platform's flags (Durable Objects error handling), or a bug in the object's code.
 */
export function platformError(kind: PlatformFault): Error {
  if (kind === "overloaded")
    return Object.assign(new Error("Durable Object is overloaded. Too many requests queued."), {
      overloaded: true,
      retryable: false,
    });
  if (kind === "retryable") return Object.assign(new Error("Network connection lost."), { retryable: true });
  return Object.assign(new TypeError("Cannot read properties of undefined (reading 'status')"), { remote: true });
}

export interface StubCall {
  method: string;
  args: unknown[];
  /** Which stub made it (a new one for every namespace.get). */
  stub: number;
  /** The fault thrown instead of reaching the object, if any. */
  fault?: PlatformFault;
}

/**
 * A namespace whose stubs ask `fault` before every RPC: a fault is thrown as the platform would throw
 * it, without reaching the object; otherwise the real object answers. `calls` records every RPC.
 */
export function faultyNamespace<N extends object>(
  real: N,
  fault: (method: string, args: unknown[]) => PlatformFault | undefined,
): { namespace: N; calls: StubCall[] } {
  const calls: StubCall[] = [];
  const ns = real as unknown as { get(id: unknown): Record<string, (...args: unknown[]) => Promise<unknown>> };
  let stubs = 0;
  const namespace = new Proxy(real, {
    get(target, property) {
      if (property !== "get") {
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (id: unknown) => {
        const stub = ns.get(id);
        const serial = ++stubs;
        return new Proxy(
          {},
          {
            get:
              (_, method) =>
              (...args: unknown[]) => {
                const kind = fault(String(method), args);
                calls.push({ method: String(method), args, stub: serial, ...(kind ? { fault: kind } : {}) });
                return kind ? Promise.reject(platformError(kind)) : stub[String(method)]!(...args);
              },
          },
        );
      };
    },
  });
  return { namespace, calls };
}

/** Writes (begin, commit, complete, record) the ledger was sent for a call id, across every writeMany. */
export function writesFor(calls: StubCall[], callId: string): { op: string; fault?: PlatformFault }[] {
  const out: { op: string; fault?: PlatformFault }[] = [];
  for (const call of calls) {
    if (call.method !== "writeMany") continue;
    for (const write of call.args[0] as any[]) {
      const id =
        write.op === "begin"
          ? write.input.callId
          : write.op === "commit"
            ? write.input.record.callId
            : write.record.callId;
      if (id === callId) out.push({ op: write.op, ...(call.fault ? { fault: call.fault } : {}) });
    }
  }
  return out;
}

export interface StorageFault {
  /** Transactions that threw so far. */
  failures(): number;
  /** Transactions run so far (failed or not). */
  runs(): number;
  restore(): Promise<void>;
}

/**
 * Makes the object's transactionSync throw mid-apply when `fails(n)` says so for its n-th transaction
 * (from 1): the transaction's writes are made, then it throws, so SQLite rolls them back.
 */
export async function failTransactions(stub: DurableObjectStub, fails: (n: number) => boolean): Promise<StorageFault> {
  let runs = 0;
  let failures = 0;
  await runInDurableObject(stub, (_instance: unknown, state: DurableObjectState) => {
    const storage = state.storage as DurableObjectStorage & { transactionSync<T>(run: () => T): T };
    const real = storage.transactionSync.bind(storage);
    storage.transactionSync = <T>(run: () => T): T =>
      real(() => {
        const out = run();
        if (fails(++runs)) {
          failures++;
          throw new Error("injected: the storage failed mid-transaction");
        }
        return out;
      });
  });
  return {
    failures: () => failures,
    runs: () => runs,
    restore: async () => {
      await runInDurableObject(stub, (_instance: unknown, state: DurableObjectState) => {
        delete (state.storage as { transactionSync?: unknown }).transactionSync;
      });
    },
  };
}
