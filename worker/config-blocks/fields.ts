import * as v from "valibot";
import { isLoopbackHost } from "../identity/loopback";

/*
 * Field schemas the optional configuration blocks share (identity, connections): imported only by
 * their schemas, which are a module apart (lazy/entry.ts).
 */

/** Why a URL of the configuration is refused (https; http only on loopback; no credentials or fragment). */
function urlProblem(text: string, origin: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute URL";
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname)))
    return "must be https (http only on loopback)";
  if (url.username || url.password || url.hash || text.includes("#")) return "must hold no credentials or fragment";
  if (origin && (url.pathname !== "/" || url.search || text.endsWith("/")))
    return "must be an origin like https://acme.cloudflareaccess.com (no path)";
  return undefined;
}

/** A URL field of the configuration: see urlProblem (`origin`: an origin, no path). */
export const url = (origin = false) =>
  v.pipe(
    v.string(),
    v.maxLength(512, "must be at most 512 characters"),
    v.check(
      (text) => urlProblem(text, origin) === undefined,
      (issue) => urlProblem(issue.input as string, origin) ?? "is invalid",
    ),
  );

/** A text field of the configuration: 1 to `max` characters. */
export const text = (max: number) =>
  v.pipe(v.string(), v.minLength(1, "must not be empty"), v.maxLength(max, `must be at most ${max} characters`));
