import { Hono } from "../hono-lazy";
import { version } from "../../package.json";
import type { AppEnv } from "../env";

/** Liveness without a key: also the floor the HTTP benchmark compares the API against. */
export const health = new Hono<AppEnv>().get("/healthz", (c) => c.json({ ok: true, version }));
