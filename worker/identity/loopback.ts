import { classifyIpLiteral } from "../../src/ip";

/** Hosts plain http may reach: wrangler dev and the test servers. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, "$1");
  return host === "localhost" || classifyIpLiteral(host) === "loopback";
}
