/**
 * Why the last build failed, as a failed build under `wrangler dev` writes it into the catalogue
 * module (scripts/build.mjs): wrangler holds every request while a build fails, so the build writes
 * this instead of failing, and the dev server answers at once (worker/middleware/build-failure.ts).
 * A deploy's build never writes it.
 */
export interface BuildFailure {
  /** Every problem the build found, one per line (a tool file, a tenant configuration). */
  message: string;
  /** The repository-relative file of the first problem, when the build could tell. */
  file?: string;
}
