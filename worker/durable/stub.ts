import type { DurableObject } from "cloudflare:workers";

/** The public methods of a Durable Object class: what its stub answers over RPC (lifecycle hooks aside). */
export type RpcMethodName<T> = Exclude<
  { [K in keyof T]: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T],
  keyof DurableObject
>;

/**
 * An object's stub typed as its plain methods, each answering a promise. The generated RPC types of
 * deep unions are too deep for tsc; every value crossing these stubs is plain JSON-like data that
 * structured clone keeps as is. Derived from the class, so a stub cannot drift from its object.
 */
export type PlainStub<T> = {
  [K in RpcMethodName<T>]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

/**
 * One entry per RPC method of a class, checked both ways by `satisfies MethodList<T>`: a method added
 * to the class and not listed (or listed and gone) is a compile error where the list is written.
 */
export type MethodList<T> = { readonly [K in RpcMethodName<T>]: true };
