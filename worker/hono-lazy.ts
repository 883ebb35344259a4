import type { Env, Schema } from "hono";
import { HonoBase } from "hono/hono-base";
import type { Result, Router } from "hono/router";
import { PatternRouter } from "hono/router/pattern-router";
import type { BlankSchema } from "hono/types";

/**
 * hono/tiny's PatternRouter, with its patterns compiled at the first match instead of as each route is
 * added: the Worker's routing costs nothing at startup (it moves to the first request), and a sub-app,
 * whose routes app.route() copies into the app, never compiles its own.
 */
export class LazyPatternRouter<T> implements Router<T> {
  readonly name = "LazyPatternRouter";
  #pending: [method: string, path: string, handler: T][] = [];
  #router: PatternRouter<T> | undefined;

  add(method: string, path: string, handler: T): void {
    if (this.#router) this.#router.add(method, path, handler);
    else this.#pending.push([method, path, handler]);
  }

  match(method: string, path: string): Result<T> {
    if (!this.#router) {
      this.#router = new PatternRouter<T>();
      for (const [method, path, handler] of this.#pending) this.#router.add(method, path, handler);
      this.#pending = [];
    }
    return this.#router.match(method, path);
  }
}

/** hono/tiny's Hono on the lazy router: the Worker's app and every sub-app of its routes. */
export class Hono<E extends Env = Env, S extends Schema = BlankSchema, BasePath extends string = "/"> extends HonoBase<E, S, BasePath> {
  constructor() {
    super();
    this.router = new LazyPatternRouter();
  }
}
