import { MCP_HEADERS } from "../../../src/mcp/headers";

/** The MCP headers of a POST, with RFC 9110 optional whitespace removed. */
export interface McpHeaders {
  version?: string;
  method?: string;
  name?: string;
}

/** RFC 9110 §5.5: a field value is read without the optional whitespace around it. */
export function trimOws(value: string | null | undefined): string | undefined {
  return value === null || value === undefined ? undefined : value.replace(/^[\t ]+|[\t ]+$/g, "");
}

/** The MCP headers of a request, as both eras' POSTs are classified by them. */
export function mcpHeadersOf(headers: Headers): McpHeaders {
  const version = trimOws(headers.get(MCP_HEADERS.protocolVersion));
  const method = trimOws(headers.get(MCP_HEADERS.method));
  const name = trimOws(headers.get(MCP_HEADERS.name));
  return {
    ...(version === undefined ? {} : { version }),
    ...(method === undefined ? {} : { method }),
    ...(name === undefined ? {} : { name }),
  };
}
