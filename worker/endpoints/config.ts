import * as v from "valibot";
import { codeModeField } from "../code-mode/modes";
import { SearchConfigSchema } from "../search/config";

/** How many endpoints a tenant may serve: each is an OAuth resource and a cached view of its tools. */
export const MAX_ENDPOINTS = 32;

/**
 * Names an MCP client or toolgate may take under /mcp/ for something else (the HTTP+SSE transport's
 * `sse` and `messages`): an endpoint there would shadow it.
 */
const RESERVED = ["sse", "message", "messages", "mcp", "well-known"];

const endpointName = v.pipe(
  v.string(),
  v.regex(/^[a-z][a-z0-9-]{0,39}$/, "must be lowercase letters, digits and -, starting with a letter, at most 40"),
  v.check((name) => !RESERVED.includes(name), `is a route's name (${RESERVED.join(", ")}): choose another`),
);

/** An endpoint's "tools" entry: a tool's name, "tag:<tag>", "server:<remote MCP server's name>" or "*". */
const selectionEntry = v.pipe(
  v.string(),
  v.regex(
    /^(\*|tag:[a-z0-9][a-z0-9_-]{0,31}|server:[^\s]{1,64}|[a-zA-Z0-9_-]{1,64})$/,
    'must be a tool name, "tag:<tag>", "server:<name>" or "*"',
  ),
);

const names = (max: number) => v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(256))), v.maxLength(max)));

/**
 * A curated MCP endpoint, served at /mcp/<name> (docs/endpoints.md): the tools it offers, its own
 * search mode, and who may use it (any of its keys, roles or users; none named: every caller).
 */
export const EndpointConfigSchema = v.strictObject({
  tools: v.pipe(v.array(selectionEntry), v.minLength(1, "must name at least one tool"), v.maxLength(1000)),
  search: v.optional(SearchConfigSchema),
  /** Its code mode; absent: its caller's key's, else the tenant's default. */
  codeMode: codeModeField,
  /** Keys (by name) that may use it. */
  keys: names(1000),
  /** Roles of identity.roles whose people may use it. */
  roles: names(64),
  /** People (by id) who may use it. */
  users: names(1000),
});

export type EndpointConfig = v.InferOutput<typeof EndpointConfigSchema>;

/** The tenant configuration's `endpoints` block (checked by the configuration blocks' module). */
export const endpointsSchema = () =>
  v.pipe(
    v.record(endpointName, EndpointConfigSchema),
    v.check((all) => Object.keys(all).length <= MAX_ENDPOINTS, `may name at most ${MAX_ENDPOINTS} endpoints`),
  );
