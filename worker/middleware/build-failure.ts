import { createMiddleware } from "hono/factory";
import type { BuildFailure } from "../tenant/build-failure";
import type { AppEnv } from "../env";

/** Answers every request 503 build_failed, naming the problem and its file, until a build succeeds. */
export function answerBuildFailure(failure: BuildFailure) {
  return createMiddleware<AppEnv>(async (c) => {
    const message =
      `The last build failed, so this dev server runs no tools until it is fixed ` +
      `(it rebuilds when tools/ or tenants/ change): ${failure.message}`;
    return c.json({ error: { code: "build_failed", message, ...(failure.file ? { file: failure.file } : {}) } }, 503);
  });
}
