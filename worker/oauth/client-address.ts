/**
 * The requester's address as a rate limit counts it, from Cloudflare's `CF-Connecting-IP`: an IPv4
 * address, or the /64 of an IPv6 one (what a single subscriber is usually handed, so one client cannot
 * spread over its 2^64 addresses; wrangler dev sets it too). Without it (a service binding, tests)
 * every request is one "unknown" address.
 */
export function clientAddress(header: string | undefined | null): string {
  const ip = header?.trim().toLowerCase();
  if (!ip) return "unknown";
  if (!ip.includes(":")) return ip;
  // An IPv4 address written as IPv6 (::ffff:192.0.2.1) is that IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (mapped) return mapped[1]!;
  const [head = "", tail] = ip.split("::", 2);
  const groups = head ? head.split(":") : [];
  // "::" stands for as many zero groups as the address needs to have eight (one IPv4 tail counts two).
  if (tail !== undefined) {
    const after = tail ? tail.split(":").reduce((n, group) => n + (group.includes(".") ? 2 : 1), 0) : 0;
    groups.push(...Array<string>(Math.max(0, 8 - groups.length - after)).fill("0"), ...(tail ? tail.split(":") : []));
  }
  // Written shortest (no leading zeros), so every spelling of one /64 counts as one.
  const shortest = (group: string) => (/^[0-9a-f]{1,4}$/.test(group) ? parseInt(group, 16).toString(16) : group);
  return `${groups.slice(0, 4).map(shortest).join(":")}::/64`;
}
