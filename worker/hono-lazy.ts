import type { Env, Schema } from "hono";
import { HonoBase } from "hono/hono-base";
import type { Result, Router } from "hono/router";
import { PatternRouter } from "hono/router/pattern-router";
import type { BlankSchema } from "hono/types";

/** Matches remembered per router: the API's paths repeat (a call route is one path per format). */
const MATCHES_KEPT = 256;
/** Longer paths are matched each time: they are rare, and a key that long costs its hashing. */
const KEPT_PATH_CHARS = 200;

/**
 * hono/tiny's PatternRouter, with its patterns compiled at the first match instead of as each route is
 * added: the Worker's routing costs nothing at startup (it moves to the first request), and a sub-app,
 * whose routes app.route() copies into the app, never compiles its own. A match is remembered per
 * method and path (the pattern router tests every route's pattern on every request); the results are
 * only read by Hono, and adding a route forgets them.
 */
export class LazyPatternRouter<T> implements Router<T> {
  readonly name = "LazyPatternRouter";
  #pending: [method: string, path: string, handler: T][] = [];
  #router: PatternRouter<T> | undefined;
  #matches = new Map<string, Result<T>>();

  add(method: string, path: string, handler: T): void {
    this.#matches.clear();
    if (this.#router) this.#router.add(method, path, handler);
    else this.#pending.push([method, path, handler]);
  }

  match(method: string, path: string): Result<T> {
    if (path.length > KEPT_PATH_CHARS) return this.#compiled().match(method, path);
    const key = `${method} ${path}`;
    let result = this.#matches.get(key);
    if (result === undefined) {
      result = this.#compiled().match(method, path);
      if (this.#matches.size >= MATCHES_KEPT) this.#matches.clear();
      this.#matches.set(key, result);
    }
    return result;
  }

  #compiled(): PatternRouter<T> {
    if (!this.#router) {
      this.#router = new PatternRouter<T>();
      for (const [method, path, handler] of this.#pending) this.#router.add(method, path, handler);
      this.#pending = [];
    }
    return this.#router;
  }
}

/** hono/tiny's Hono on the lazy router: the Worker's app and every sub-app of its routes. */
export class Hono<E extends Env = Env, S extends Schema = BlankSchema, BasePath extends string = "/"> extends HonoBase<
  E,
  S,
  BasePath
> {
  constructor() {
    super();
    this.router = new LazyPatternRouter();
  }
}
