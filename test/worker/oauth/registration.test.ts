import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SECOND_ISOLATE_CONFIG } from "../../fixtures/second-isolate-tenant";
import { BASE, json } from "../helpers/requests";
import { authorizeUrl, pkce, REDIRECT_URI, send, withEnv } from "../helpers/oauth";

/** A public client's registration within every bound, with `more` merged in. */
function metadata(more: Record<string, unknown> = {}): Record<string, unknown> {
  return { client_name: "Bounded client", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none", ...more };
}

function registration(body: unknown, address: string): Request {
  const headers = { "content-type": "application/json", "cf-connecting-ip": address };
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return new Request(`${BASE}/register`, { method: "POST", headers, body: text });
}

/** POST /register from `address` (CF-Connecting-IP, as Cloudflare sets it). */
function register(body: unknown, address: string): Promise<Response> {
  const request = registration(body, address);
  return send(request.url, { method: "POST", headers: request.headers, body: request.body });
}

/** The bounds' wording of a string too long. */
const longer = (length: number, most: number) => `is ${length} characters long; at most ${most} are accepted`;

/** `count` language variants of client_name, `tag(i)` the tag of the i-th. */
function variants(count: number, tag: (i: number) => string, value: string): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`client_name#${tag(i)}`, value]));
}

const RATE = "20 at once, then one an hour";
const LIMIT = 16 * 1024;

async function storedClients(): Promise<number> {
  return (await env.OAUTH_KV.list({ prefix: "client:" })).keys.length;
}

/** `count` redirect URIs, each `length` characters long at least. */
function uris(count: number, length = 0): string[] {
  return Array.from({ length: count }, (_, i) => `${REDIRECT_URI}/${i}`.padEnd(length, "x"));
}

describe("open client registration is bounded (RFC 7591 invalid_client_metadata)", () => {
  it("refuses what issue 27 stored: 9,000 redirect URIs (~773 KiB), a 500,000-character client_name", async () => {
    const before = await storedClients();
    const issue = [metadata({ redirect_uris: uris(9_000, 88) }), metadata({ client_name: "n".repeat(500_000) })];
    for (const stored of issue) {
      const bytes = JSON.stringify(stored).length;
      const res = await register(stored, "192.0.2.1");
      expect(res.status).toBe(400);
      const description = `the client metadata is ${bytes} bytes of JSON; at most ${LIMIT} are accepted`;
      expect(await json(res)).toEqual({ error: "invalid_client_metadata", error_description: description });
    }
    expect(await storedClients()).toBe(before);
  });

  it("names each field and its limit; a registration at every limit is stored", async () => {
    const tag = "a".repeat(35);
    const refused: [Record<string, unknown>, string][] = [
      [{ client_name: "n".repeat(201) }, "client_name is 201 characters long; at most 200 are accepted"],
      [{ redirect_uris: uris(17) }, "redirect_uris lists 17 entries; at most 16 are accepted"],
      [{ redirect_uris: uris(1, 2049) }, "redirect_uris[0] is 2049 characters long; at most 2048 are accepted"],
      [{ logo_uri: `https://client.example/${"l".repeat(2030)}` }, `logo_uri ${longer(2053, 2048)}`],
      [{ contacts: Array(9).fill("ops@client.example") }, "contacts lists 9 entries; at most 8 are accepted"],
      [{ contacts: [`${"c".repeat(309)}@client.example`] }, `contacts[0] ${longer(324, 320)}`],
      [{ grant_types: Array(9).fill("authorization_code") }, "grant_types lists 9 entries; at most 8 are accepted"],
      [{ token_endpoint_auth_method: "m".repeat(129) }, `token_endpoint_auth_method ${longer(129, 128)}`],
      [{ "client_name#fr": "n".repeat(201) }, "client_name#fr is 201 characters long; at most 200 are accepted"],
      [{ [`client_name#${tag}b`]: "nom" }, `client_name#${tag}b's language tag ${longer(36, 35)}`],
      [
        variants(17, (i) => `l${i}`, "nom"),
        "the metadata has 17 language variants (client_name#fr …); at most 16 are accepted",
      ],
    ];
    const before = await storedClients();
    for (const [more, description] of refused) {
      const res = await register(metadata(more), "192.0.2.2");
      expect(res.status, description).toBe(400);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(await json(res)).toEqual({ error: "invalid_client_metadata", error_description: description });
    }
    expect(await storedClients()).toBe(before);
    const atEveryLimit = metadata({
      client_name: "n".repeat(200),
      redirect_uris: uris(4, 2048),
      contacts: Array(8).fill("ops@client.example"),
      ...variants(16, (i) => (i ? `l${i}` : tag), "v".repeat(200)),
    });
    expect(JSON.stringify(atEveryLimit).length).toBeLessThanOrEqual(16 * 1024);
    const stored = await register(atEveryLimit, "192.0.2.2");
    expect(stored.status).toBe(201);
    expect((await json(stored)).client_name).toBe("n".repeat(200));
    expect((await register(metadata({ redirect_uris: uris(16) }), "192.0.2.2")).status).toBe(201);
  });

  it("lets a browser-based client read the refusal (CORS, as the library's own answers)", async () => {
    const request = registration(metadata({ client_name: "n".repeat(201) }), "192.0.2.3");
    request.headers.set("origin", "https://app.client.example");
    const res = await send(request.url, { method: "POST", headers: request.headers, body: request.body });
    expect(res.status).toBe(400);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.client.example");
  });
});

describe("registrations per client address", () => {
  const second = (env as unknown as { SECOND_ISOLATE: Fetcher }).SECOND_ISOLATE;
  /** The same tenant in this isolate and in another one (test/runner/second-isolate.ts). */
  const here = (address: string) =>
    withEnv({ TOOLGATE_CONFIG: SECOND_ISOLATE_CONFIG }, () => register(metadata(), address));
  const there = (address: string) => second.fetch(registration(metadata(), address));

  it("20 at once from one address, counted by every isolate; then 429 with Retry-After until the next", async () => {
    for (let i = 0; i < 20; i++) {
      expect((await (i % 2 ? here : there)("203.0.113.7")).status, `registration ${i + 1}`).toBe(201);
    }
    for (const refused of [await here("203.0.113.7"), await there("203.0.113.7")]) {
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(3_500);
      expect(retryAfter).toBeLessThanOrEqual(3_600);
      expect(await json(refused)).toEqual({
        error: "temporarily_unavailable",
        error_description: `Too many client registrations from this address (${RATE}); retry in ${retryAfter} s.`,
      });
    }
    // Another address is another count.
    expect((await here("203.0.113.8")).status).toBe(201);
  });

  it("counts an IPv6 client by its /64, however it writes its address", async () => {
    const spellings = ["2001:db8:a:b::1", "2001:0db8:000a:000b:ffff::2"];
    spellings.push("2001:DB8:A:B:1:2:3:4", "2001:db8:a:b::192.0.2.9");
    for (let i = 0; i < 20; i++) {
      expect((await here(spellings[i % spellings.length]!)).status, `registration ${i + 1}`).toBe(201);
    }
    expect((await here("2001:db8:a:b:ffff:ffff:ffff:ffff")).status).toBe(429);
    expect((await here("2001:db8:a:c::1")).status).toBe(201);
  });

  it("does not count what it refuses (out of bounds, or not JSON)", async () => {
    for (let i = 0; i < 21; i++) {
      expect((await register(metadata({ client_name: "n".repeat(201) }), "198.51.100.1")).status).toBe(400);
      expect((await register("{", "198.51.100.1")).status).toBe(400);
    }
    expect((await register(metadata(), "198.51.100.1")).status).toBe(201);
  });
});

/** The library's cache of client ID metadata documents: a document put there is resolved without a fetch. */
const CIMD_CACHE = "workers-oauth-provider:cimd:v1";

/** A client ID metadata document at an https URL, as its origin would serve it (cacheable). */
async function publishDocument(name: string, more: Record<string, unknown> = {}): Promise<string> {
  const clientId = `https://client.example/oauth/${name}.json`;
  const document = { client_id: clientId, ...metadata(more) };
  const headers = { "content-type": "application/json", "cache-control": "public, max-age=600" };
  await (await caches.open(CIMD_CACHE)).put(clientId, new Response(JSON.stringify(document), { headers }));
  return clientId;
}

describe("client ID metadata documents, and clients registered before the bounds", () => {
  it("sends a document within the bounds on to the consent page", async () => {
    const clientId = await publishDocument("within");
    const res = await send(authorizeUrl({ clientId, challenge: (await pkce()).challenge }));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toMatch(/^\/#\/consent\//);
  });

  it("refuses a document beyond them, naming the field and its limit, and keeps nothing", async () => {
    const consents = async () => (await env.OAUTH_KV.list({ prefix: "toolgate-consent:" })).keys.length;
    const before = await consents();
    for (const [name, more, problem] of [
      ["long-name", { client_name: "n".repeat(201) }, "client_name is 201 characters long; at most 200 are accepted"],
      [
        "many-uris",
        { redirect_uris: [REDIRECT_URI, ...uris(16)] },
        "redirect_uris lists 17 entries; at most 16 are accepted",
      ],
    ] as const) {
      const clientId = await publishDocument(name, more);
      const res = await send(authorizeUrl({ clientId, challenge: (await pkce()).challenge }));
      expect(res.status, name).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      const refusal = `Sign-in refused: this client's metadata is out of bounds (invalid_client_metadata): ${problem}.`;
      expect(await res.text()).toBe(`${refusal}\n`);
    }
    expect(await consents()).toBe(before);
  });

  it("refuses a client stored before the bounds (its 500,000-character name is never shown)", async () => {
    const legacy = {
      clientId: "legacy-client",
      redirectUris: [REDIRECT_URI],
      clientName: "n".repeat(500_000),
      tokenEndpointAuthMethod: "none",
      grantTypes: ["authorization_code", "refresh_token"],
      responseTypes: ["code"],
      registrationDate: Math.floor(Date.now() / 1000),
    };
    await env.OAUTH_KV.put("client:legacy-client", JSON.stringify(legacy));
    const res = await send(authorizeUrl({ clientId: "legacy-client", challenge: (await pkce()).challenge }));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("client_name is 500000 characters long; at most 200 are accepted");
  });
});
