import { describe, expect, it } from "vitest";
import { checkEgress, createEgressFetch, parseEgressEntry, type EgressPolicy } from "../../src/egress";
import { isToolError } from "../../src/errors";
import { classifyIpLiteral, parseIPv4, parseIPv6 } from "../../src/ip";

const open: EgressPolicy = { allowHosts: ["*"] };
const reason = (url: string, policy: EgressPolicy = open) => {
  const r = checkEgress(url, policy);
  return r.ok ? "ok" : r.reason;
};

describe("checkEgress: internal addresses in every notation", () => {
  const loopback = [
    "https://127.0.0.1/",
    "https://2130706433/",
    "https://0177.0.0.1/",
    "https://0x7f.1/",
    "https://0x7f000001/",
    "https://017700000001/",
    "https://127.1/",
    "https://%31%32%37.0.0.1/",
    "https://127.0.0.1./",
    "https://[::1]/",
    "https://[0:0:0:0:0:0:0:1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[::127.0.0.1]/",
    "https://[::ffff:0:7f00:1]/",
    "https://[64:ff9b::7f00:1]/",
    "https://[2002:7f00:1::]/",
  ];
  it.each(loopback)("refuses %s as loopback", (url) => {
    expect(reason(url)).toMatch(/loopback/);
  });

  it.each([
    ["https://10.1.2.3/", /private/],
    ["https://172.31.255.255/", /private/],
    ["https://192.168.0.1/", /private/],
    ["https://0xc0a80001/", /private/],
    ["https://169.254.169.254/latest/meta-data", /link-local/],
    ["https://100.64.0.1/", /CGNAT/],
    ["https://100.127.255.255/", /CGNAT/],
    ["https://0.0.0.0/", /unspecified/],
    ["https://0/", /unspecified/],
    ["https://[::]/", /unspecified/],
    ["https://224.0.0.1/", /multicast/],
    ["https://255.255.255.255/", /reserved/],
    ["https://[fd12:3456::1]/", /unique local/],
    ["https://[fc00::1]/", /unique local/],
    ["https://[fe80::1]/", /link-local/],
    ["https://[ff02::1]/", /multicast/],
    ["https://[::ffff:10.0.0.1]/", /IPv4-mapped form of a private/],
    ["https://[::ffff:a9fe:a9fe]/", /IPv4-mapped form of a link-local/],
    ["https://localhost/", /local name/],
    ["https://api.localhost/", /local name/],
    ["https://LOCALHOST./", /local name/],
  ])("refuses %s", (url, pattern) => {
    expect(reason(url)).toMatch(pattern);
  });

  it.each([
    "https://8.8.8.8/",
    "https://100.128.0.1/",
    "https://172.32.0.1/",
    "https://[2606:4700::1111]/",
    "https://[::ffff:8.8.8.8]/",
    "https://example.com/",
  ])("allows public %s under '*'", (url) => expect(reason(url)).toBe("ok"));
});

describe("checkEgress: scheme, allow-list and local development", () => {
  const policy: EgressPolicy = {
    allowHosts: ["api.example.com", "*.svc.example.org"],
    allowHttpHosts: ["127.0.0.1", "localhost"],
  };

  it("allows exact and wildcard hosts over https only", () => {
    expect(reason("https://api.example.com/x", policy)).toBe("ok");
    expect(reason("https://API.Example.com./x", policy)).toBe("ok");
    expect(reason("https://a.b.svc.example.org/", policy)).toBe("ok");
    expect(reason("https://svc.example.org/", policy)).toMatch(/not in the allow-list/);
    expect(reason("https://evil-api.example.com/", policy)).toMatch(/not in the allow-list/);
    expect(reason("https://api.example.com.evil.net/", policy)).toMatch(/not in the allow-list/);
    expect(reason("http://api.example.com/", policy)).toMatch(/https only/);
    expect(reason("ftp://api.example.com/", policy)).toMatch(/https only/);
    expect(reason("file:///etc/passwd", policy)).toMatch(/https only/);
    expect(reason("not a url", policy)).toBe('not a valid absolute URL: "not a url"');
    // Whole or not at all: a cut made before masking could end inside a secret in the query.
    expect(reason(`no scheme?key=${"k".repeat(300)}`, policy)).toBe("not a valid absolute URL: (314 characters)");
  });

  it("refuses credentials embedded in the URL", () => {
    expect(reason("https://user:pw@api.example.com/", policy)).toMatch(/credentials/);
  });

  it("lets explicitly allowed local hosts through over http on their default ports, in any notation of the same address", () => {
    expect(reason("http://127.0.0.1/x", policy)).toBe("ok");
    expect(reason("http://2130706433:80/x", policy)).toBe("ok");
    expect(reason("https://localhost/", policy)).toBe("ok");
    expect(reason("http://127.0.0.2/", policy)).toMatch(/https only/);
    expect(reason("https://127.0.0.2/", policy)).toMatch(/loopback/);
    expect(reason("https://[::1]/", policy)).toMatch(/loopback/);
  });

  it("matches origins: a host entry allows only its default port, an origin entry only its scheme, host and port", () => {
    // Allowing localhost for development no longer opens every port on it.
    expect(reason("http://127.0.0.1:8080/x", policy)).toBe(
      "origin http://127.0.0.1:8080 is not in the allow-list " +
        "(only other ports or schemes of 127.0.0.1 are; a host entry means its default port)",
    );
    expect(reason("http://localhost:1/", policy)).toMatch(/^origin http:\/\/localhost:1 is not in the allow-list/);
    expect(reason("https://api.example.com:8443/", policy)).toMatch(
      /^origin https:\/\/api\.example\.com:8443 is not in the allow-list/,
    );
    expect(reason("https://api.example.com:443/", policy)).toBe("ok");

    const origins: EgressPolicy = {
      allowHosts: ["https://api.example.com:8443", "https://*.svc.example.org:9443", "https://plain.example.com:443"],
      allowHttpHosts: ["http://127.0.0.1:9001", "http://[::1]:9002"],
    };
    expect(reason("https://api.example.com:8443/v1", origins)).toBe("ok");
    expect(reason("https://api.example.com/", origins)).toMatch(
      /^origin https:\/\/api\.example\.com is not in the allow-list/,
    );
    expect(reason("https://a.svc.example.org:9443/", origins)).toBe("ok");
    expect(reason("https://plain.example.com/", origins)).toBe("ok");
    expect(reason("http://127.0.0.1:9001/", origins)).toBe("ok");
    expect(reason("http://2130706433:9001/", origins)).toBe("ok");
    expect(reason("https://127.0.0.1:9001/", origins)).toMatch(
      /^origin https:\/\/127\.0\.0\.1:9001 is not in the allow-list/,
    );
    expect(reason("http://127.0.0.1:9002/", origins)).toMatch(
      /^origin http:\/\/127\.0\.0\.1:9002 is not in the allow-list/,
    );
    expect(reason("http://127.0.0.1/", origins)).toMatch(/not in the allow-list/);
    expect(reason("http://[::1]:9002/", origins)).toBe("ok");
    expect(reason("https://evil.example/", origins)).toBe("host evil.example is not in the allow-list");
  });

  it("reads entries as origins or hosts, and says why an entry is neither", () => {
    expect(parseEgressEntry("https://API.example.com:443/")).toEqual({
      host: "api.example.com",
      scheme: "https:",
      port: "",
    });
    expect(parseEgressEntry("http://127.1:9001")).toEqual({ host: "127.0.0.1", scheme: "http:", port: "9001" });
    expect(parseEgressEntry("https://api.example.com:0443")).toEqual({
      host: "api.example.com",
      scheme: "https:",
      port: "",
    });
    expect(parseEgressEntry("*.example.com")).toEqual({ host: "*.example.com" });
    expect(parseEgressEntry("localhost:8080")).toMatch(
      /names a port: write the origin with its scheme, e\.g\. "https:\/\/localhost:8080"/,
    );
    expect(parseEgressEntry("ftp://files.example.com")).toMatch(/only http and https origins/);
    expect(parseEgressEntry("https://api.example.com/v1")).toMatch(
      /not an origin: write scheme:\/\/host\[:port\], without a path/,
    );
    expect(parseEgressEntry("https://api.example.com:70000")).toMatch(/port must be a number from 1 to 65535/);
    expect(parseEgressEntry("https://user@api.example.com")).toMatch(/holds no credentials/);
    // An entry that does not read never matches.
    expect(reason("https://localhost:8080/", { allowHosts: ["localhost:8080"] })).toMatch(/local name/);
  });

  it("canonicalises allow-list entries written in other notations", () => {
    expect(reason("http://127.0.0.1/", { allowHosts: [], allowHttpHosts: ["127.1"] })).toBe("ok");
    expect(reason("http://[::1]/", { allowHosts: [], allowHttpHosts: ["::1"] })).toBe("ok");
  });

  it("does not allow an internal literal even when listed in allowHosts", () => {
    expect(reason("https://10.0.0.1/", { allowHosts: ["10.0.0.1"] })).toMatch(/private/);
  });
});

describe("IP parsing", () => {
  it("parses IPv4 notations like inet_aton", () => {
    expect(parseIPv4("127.1")).toBe(0x7f000001);
    expect(parseIPv4("0x7f.0.0.1")).toBe(0x7f000001);
    expect(parseIPv4("0177.1")).toBe(0x7f000001);
    expect(parseIPv4("2130706433")).toBe(0x7f000001);
    expect(parseIPv4("256.0.0.1")).toBeUndefined();
    expect(parseIPv4("1.2.3.4.5")).toBeUndefined();
    expect(parseIPv4("08.0.0.1")).toBeUndefined();
    expect(parseIPv4("example.com")).toBeUndefined();
  });
  it("parses IPv6 with compression, zone ids and dotted tails", () => {
    expect(parseIPv6("::1")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6("[fe80::1%eth0]")).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6("::ffff:1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(parseIPv6("1::2::3")).toBeUndefined();
    expect(parseIPv6("1:2:3:4:5:6:7:8:9")).toBeUndefined();
  });
  it("classifies raw literals not normalised by a URL parser", () => {
    expect(classifyIpLiteral("0177.0.0.1")).toMatch(/loopback/);
    expect(classifyIpLiteral("fe80::1%25eth0")).toMatch(/link-local/);
    expect(classifyIpLiteral("8.8.8.8")).toBeNull();
    expect(classifyIpLiteral("example.com")).toBeUndefined();
  });
});

describe("createEgressFetch", () => {
  const policy: EgressPolicy = { allowHosts: ["a.example.com", "b.example.com"], maxRedirects: 2 };
  function fake(routes: Record<string, () => Response>) {
    const seen: { url: string; method: string; auth: string | null; key?: string; body: string | null }[] = [];
    const base = (async (url: string, init: RequestInit) => {
      const headers = new Headers(init.headers);
      const key = headers.get("x-custom-key");
      seen.push({
        url,
        method: init.method ?? "GET",
        auth: headers.get("authorization"),
        ...(key ? { key } : {}),
        body: typeof init.body === "string" ? init.body : null,
      });
      expect(init.redirect).toBe("manual");
      const route = routes[url];
      return route ? route() : new Response("missing", { status: 404 });
    }) as unknown as typeof fetch;
    return { seen, fetch: createEgressFetch(policy, base) };
  }
  const redirect =
    (to: string, status = 302) =>
    () =>
      new Response(null, { status, headers: { location: to } });

  it("refuses before any request is made", async () => {
    const { seen, fetch } = fake({});
    const error = await fetch("https://evil.example.net/").catch((e: unknown) => e);
    expect(isToolError(error) && error.code).toBe("denied");
    expect(seen).toHaveLength(0);
  });

  it("re-checks every redirect hop and stops at a refused one", async () => {
    const { seen, fetch } = fake({ "https://a.example.com/start": redirect("http://169.254.169.254/latest") });
    const error = await fetch("https://a.example.com/start").catch((e: unknown) => e);
    expect(isToolError(error) && error.message).toMatch(/Egress refused/);
    expect(seen.map((s) => s.url)).toEqual(["https://a.example.com/start"]);
  });

  it("re-checks the origin of every hop: a redirect to another port of an allowed host is refused", async () => {
    const local: EgressPolicy = { allowHosts: [], allowHttpHosts: ["http://127.0.0.1:9001"] };
    const seen: string[] = [];
    const base = (async (url: string) => {
      seen.push(url);
      return url === "http://127.0.0.1:9001/go"
        ? new Response(null, { status: 302, headers: { location: "http://127.0.0.1:6379/" } })
        : new Response("reached");
    }) as unknown as typeof fetch;
    const error = await createEgressFetch(local, base)("http://127.0.0.1:9001/go").catch((e: unknown) => e);
    expect(isToolError(error) && error.message).toBe(
      "Egress refused: origin http://127.0.0.1:6379 is not in the allow-list " +
        "(only other ports or schemes of 127.0.0.1 are; a host entry means its default port)",
    );
    expect(seen).toEqual(["http://127.0.0.1:9001/go"]);
  });

  it("follows allowed redirects, drops credentials across origins, turns 303 into GET", async () => {
    const { seen, fetch } = fake({
      "https://a.example.com/p": redirect("/q", 307),
      "https://a.example.com/q": redirect("https://b.example.com/r", 303),
      "https://b.example.com/r": () => new Response("done"),
    });
    const res = await fetch("https://a.example.com/p", {
      method: "POST",
      body: "x",
      headers: { authorization: "Bearer t", "x-custom-key": "k" },
    });
    expect(await res.text()).toBe("done");
    expect(seen).toEqual([
      { url: "https://a.example.com/p", method: "POST", auth: "Bearer t", key: "k", body: "x" },
      { url: "https://a.example.com/q", method: "POST", auth: "Bearer t", key: "k", body: "x" },
      { url: "https://b.example.com/r", method: "GET", auth: null, body: null },
    ]);
  });

  it("bounds the number of hops", async () => {
    const { seen, fetch } = fake({ "https://a.example.com/loop": redirect("/loop", 301) });
    const error = await fetch("https://a.example.com/loop").catch((e: unknown) => e);
    expect(isToolError(error) && error.message).toMatch(/Too many redirects/);
    expect(seen).toHaveLength(3);
  });

  it("returns the redirect itself when the caller asked for manual", async () => {
    const { fetch } = fake({ "https://a.example.com/m": redirect("https://evil.example.net/") });
    const res = await fetch("https://a.example.com/m", { redirect: "manual" });
    expect(res.status).toBe(302);
  });

  it("accepts a Request object", async () => {
    const { seen, fetch } = fake({ "https://a.example.com/r": () => new Response("ok") });
    const res = await fetch(new Request("https://a.example.com/r", { method: "PUT", body: "b" }));
    expect(res.status).toBe(200);
    expect(seen[0]?.method).toBe("PUT");
  });
});
