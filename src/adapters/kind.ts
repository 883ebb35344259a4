import type * as v from "valibot";
import type { Tool } from "../tool";
import type { AuthDeclaration, ConnectionUse, RateLimit } from "./declarations";
import type { UpstreamGate } from "./upstream";

/** What every adapter declaration holds, whatever its kind: the checks shared by all kinds read these. */
export interface AdapterDeclaration {
  /** Names the declaration in errors (and, for most kinds, its tool). */
  name: string;
  /** The credential, by secret name: every name must be declared in the tenant's secrets. */
  auth?: AuthDeclaration | undefined;
  /** The connection whose user token the tool sends: it must be declared in the tenant's connections. */
  connection?: ConnectionUse | undefined;
  /** Shared by every declaration of the same upstream origin, which must agree on it. */
  rateLimit?: RateLimit | undefined;
}

/** What a kind's tools get from the host: the shared rate limit of their upstream, if it declares one. */
export interface AdapterDeps {
  gate?: UpstreamGate;
}

/**
 * One kind of adapter (an HTTP endpoint, an OpenAPI document, an MCP server …): its configuration
 * section holds a list of declarations, each parsed by `schema`. Every module of such a kind exports
 * one of these, and ADAPTER_KINDS (kinds.ts) lists them: the tenant's config sections, the egress
 * allow-list, shared rate limits, secret checks and the admin listing all derive from that list.
 */
export interface AdapterKind<Declaration extends AdapterDeclaration = AdapterDeclaration> {
  /** Starts every error about a declaration, followed by its name: `HTTP tool "get_weather": invalid url: …`. */
  readonly label: string;
  readonly schema: v.GenericSchema<unknown, Declaration>;
  /**
   * The URL its requests go to (`{placeholders}` allowed): its origin joins the egress allow-list and
   * keys the shared rate limit. Throws a TypeError naming the field when there is none.
   */
  upstreamUrl(declaration: Declaration, label: string): string;
  /** Its tools, known from the declaration alone. Absent for a kind whose tools are listed at run time (mcp). */
  tools?(declaration: Declaration, deps: AdapterDeps): Tool[];
  /**
   * For a kind whose declaration makes exactly one tool: that tool's name. The host then builds the
   * tool (`tools`) on first use, so a tenant declaring a thousand pays for the ones a request needs.
   */
  toolName?(declaration: Declaration): string;
  /**
   * With toolName: the part of `schema` parsed when the tenant is built (what the host and toolName,
   * upstreamUrl and summary read: name, url, auth, rateLimit …); the whole declaration is parsed when
   * its tool is built. Its output holds those fields only.
   */
  readonly head?: v.GenericSchema<unknown, Declaration>;
  /**
   * What an admin listing shows besides its name, upstream and rate limit (never a credential);
   * `tools` is empty for a kind with toolName.
   */
  summary?(declaration: Declaration, tools: readonly Tool[]): Record<string, unknown>;
}

/** `HTTP tool "get_weather"`: how errors name a declaration, even one too broken to parse. */
export function labelOf(kind: Pick<AdapterKind, "label">, declaration: unknown): string {
  return `${kind.label} "${String((declaration as { name?: unknown } | null)?.name ?? "?")}"`;
}
