import * as v from "valibot";

/** A connection's name in the tenant's `connections` (the worker checks that it is declared). */
export const connectionName = v.pipe(
  v.string(),
  v.regex(/^[a-z][a-z0-9_-]{0,31}$/, "must be 1-32 lowercase letters, digits, _ or -, starting with a letter"),
);
/** An OAuth scope (RFC 6749 section 3.3: printable ASCII but space, " and \\). */
export const oauthScope = v.pipe(v.string(), v.regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/, "must be an OAuth scope"));
