import { RpcCode } from "../../../src/mcp/errors";
import type { CallResult } from "../../../src/result";
import { connectionsLibrary } from "../../connections-library";
import { RpcFailure } from "../jsonrpc";

/**
 * 2025-11-25 URLElicitationRequiredError (-32042) for a call refused because its user must connect
 * first, when the client cannot be asked inline (it declared no URL-mode elicitation): the connect page
 * as the one elicitation to complete before calling again. `origin`: the request's, where the connect
 * pages are. Undefined for any other result. Only tenants with `connections` load the library for it.
 */
export async function urlElicitationRequired(result: CallResult, origin: string): Promise<RpcFailure | undefined> {
  if (result.ok || result.error.code !== "denied") return undefined;
  const elicitation = (await connectionsLibrary()).connectElicitation(result.error.message, origin);
  if (!elicitation) return undefined;
  return new RpcFailure(RpcCode.urlElicitationRequired, elicitation.message, { elicitations: [elicitation] });
}
