/**
 * IP literal parsing and classification for the egress check. Parses every notation an attacker
 * may use to smuggle an internal address past a naive check (decimal, octal, hex, short forms,
 * IPv4-mapped/compatible IPv6, 6to4, NAT64), independent of how a URL parser normalised it.
 */

/** The 32-bit value of an IPv4 literal in any inet_aton / WHATWG notation, or undefined. */
export function parseIPv4(text: string): number | undefined {
  const host = text.endsWith(".") ? text.slice(0, -1) : text;
  const parts = host.split(".");
  if (parts.length === 0 || parts.length > 4) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) value = parseInt(part.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = Number(part);
    else return undefined;
    if (!Number.isSafeInteger(value)) return undefined;
    values.push(value);
  }
  const last = values.pop() as number;
  if (values.some((v) => v > 255)) return undefined;
  if (last >= 256 ** (4 - values.length)) return undefined;
  let result = last;
  for (const [i, v] of values.entries()) result += v * 256 ** (3 - i);
  return result;
}

/** The eight 16-bit groups of an IPv6 literal (brackets and zone id allowed), or undefined. */
export function parseIPv6(text: string): number[] | undefined {
  let host = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = host.indexOf("%");
  if (zone >= 0) host = host.slice(0, zone);
  if (!host.includes(":")) return undefined;
  const halves = host.split("::");
  if (halves.length > 2) return undefined;
  const groups = (half: string): number[] | undefined => {
    if (half === "") return [];
    const out: number[] = [];
    const pieces = half.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as string;
      if (i === pieces.length - 1 && piece.includes(".")) {
        // Only a strict dotted quad may end an IPv6 literal.
        if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(piece)) return undefined;
        const v4 = parseIPv4(piece);
        if (v4 === undefined) return undefined;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) out.push(parseInt(piece, 16));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0] as string);
  const tail = halves.length === 2 ? groups(halves[1] as string) : [];
  if (!head || !tail) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const fill = 8 - head.length - tail.length;
  if (fill < 1) return undefined;
  return [...head, ...new Array<number>(fill).fill(0), ...tail];
}

const V4_RANGES: ReadonlyArray<[string, number, string]> = [
  ["0.0.0.0", 8, "unspecified (this network)"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared address space (CGNAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignment"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "6to4 relay anycast"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved (or broadcast)"],
];
/** Parsed at the first check, not at import: the Worker's startup runs no code it does not need. */
let v4Table: { base: number; bits: number; label: string }[] | undefined;

/** Why an IPv4 address may not be reached, or undefined for a public address. */
function classifyIPv4(address: number): string | undefined {
  v4Table ??= V4_RANGES.map(([base, bits, label]) => ({ base: parseIPv4(base) as number, bits, label }));
  for (const { base, bits, label } of v4Table) {
    if (Math.floor(address / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits))) return label;
  }
  return undefined;
}

const v4Of = (hi: number, lo: number) => hi * 65536 + lo;

/** Why an IPv6 address may not be reached (embedded IPv4 judged as IPv4), or undefined when public. */
function classifyIPv6(g: readonly number[]): string | undefined {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, h1 = 0, h2 = 0] = g;
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return "unspecified";
  if (zeros(7) && h2 === 1) return "loopback";
  const embedded = (label: string, v4: number) => {
    const why = classifyIPv4(v4);
    return why ? `${label} of a ${why} IPv4 address` : undefined;
  };
  if (zeros(5) && f === 0xffff) return embedded("IPv4-mapped form", v4Of(h1, h2));
  if (zeros(6)) return embedded("IPv4-compatible form", v4Of(h1, h2));
  if (zeros(4) && e === 0xffff && f === 0) return embedded("IPv4-translated form", v4Of(h1, h2));
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0)
    return embedded("NAT64 form", v4Of(h1, h2));
  if (a === 0x64 && b === 0xff9b && c === 1) return "NAT64 local-use";
  if (a === 0x2002) return embedded("6to4 form", v4Of(b, c));
  if (a === 0x2001 && b === 0) return "Teredo tunnel";
  if (a === 0x2001 && b === 0xdb8) return "documentation";
  if (a === 0x100 && b === 0 && c === 0 && d === 0) return "discard-only";
  if ((a & 0xfe00) === 0xfc00) return "unique local (private)";
  if ((a & 0xffc0) === 0xfe80) return "link-local";
  if ((a & 0xffc0) === 0xfec0) return "site-local (deprecated)";
  if ((a & 0xff00) === 0xff00) return "multicast";
  return undefined;
}

/** For a host that is an IP literal: why it is refused, or null when it is public. undefined: not a literal. */
export function classifyIpLiteral(host: string): string | null | undefined {
  const v6 = parseIPv6(host);
  if (v6) return classifyIPv6(v6) ?? null;
  const v4 = parseIPv4(host);
  if (v4 !== undefined) return classifyIPv4(v4) ?? null;
  return undefined;
}
