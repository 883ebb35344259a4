/**
 * A chat app's token issuer on 127.0.0.1 for bench/identity.ts: its key set (one ES256 key) at
 * /jwks, and user tokens minted here with jose, as a chat app's backend signs them for toolgate
 * (Toolgate-User-Token). Counts JWKS fetches, so the bench can say the cache held.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";

export interface TokenIssuer {
  /** The tokens' `iss`: this server's origin. */
  issuer: string;
  audience: string;
  jwksUri: string;
  /** A token for `sub`, valid for `lifetimeSeconds` (default 1 hour), with a unique `jti`. */
  mint(sub: string, lifetimeSeconds?: number): Promise<string>;
  /** How often the key set was fetched. */
  jwksFetches(): number;
  close(): Promise<void>;
}

const ALG = "ES256";

export async function startTokenIssuer(audience = "toolgate-bench"): Promise<TokenIssuer> {
  const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: "bench-1", alg: ALG, use: "sig" }] });
  let fetches = 0;
  const server = createServer((req, res) => {
    if (req.url !== "/jwks") return void res.writeHead(404).end();
    fetches++;
    res.writeHead(200, { "content-type": "application/json" }).end(jwks);
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let jti = 0;
  return {
    issuer,
    audience,
    jwksUri: `${issuer}/jwks`,
    mint: (sub, lifetimeSeconds = 3600) =>
      new SignJWT({ name: `User ${sub}`, jti: `${process.pid}-${++jti}` })
        .setProtectedHeader({ alg: ALG, kid: "bench-1", typ: "JWT" })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(sub)
        .setIssuedAt()
        .setExpirationTime(`${lifetimeSeconds}s`)
        .sign(privateKey),
    jwksFetches: () => fetches,
    close: () => new Promise((closed) => server.close(() => closed())),
  };
}
