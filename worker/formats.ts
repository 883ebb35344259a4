import { detectFormat, getFormat } from "../src/formats";
import type { Format } from "../src/formats/format";
import { FORMAT_NAMES } from "../src/formats/index";
import { ApiError } from "./errors";
import { methodNotAllowed } from "./routes/method-not-allowed";

/** The format named in a route, or a 404 that lists the known ones. */
export function formatNamed(name: string): Format {
  const format = getFormat(name);
  if (!format) {
    throw new ApiError(404, "unknown_format", `Unknown format "${name}". Known formats: ${FORMAT_NAMES.join(", ")}.`);
  }
  return format;
}

/**
 * /v1/calls/<format> takes POST only: any other method on it is a 405. GET and HEAD are not refused
 * here: /v1/calls/<id> reads a call, and an id may be a format's name (records.ts decides).
 */
export function refuseOtherMethods(name: string, method: string): void {
  if (getFormat(name) && method !== "GET" && method !== "HEAD") throw formatTakesPost(name, method);
}

/** The 405 of /v1/calls/<format> for any method but POST. */
export function formatTakesPost(name: string, method: string): ApiError {
  return methodNotAllowed(method, `/v1/calls/${name}`, ["POST"]);
}

/** The format a body of model output is in, or a 400 saying which shapes are understood. */
export function formatOf(body: unknown): Format {
  const format = detectFormat(body);
  if (!format) {
    throw new ApiError(
      400,
      "unknown_format",
      `Could not tell the format of the body; send it to /v1/calls/<format> with one of: ${FORMAT_NAMES.join(", ")}.`,
    );
  }
  return format;
}
