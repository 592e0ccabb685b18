import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

import { oidcVerifier } from './oidc-verifier';

/**
 * An identity provider on a local port (OpenID discovery and its JWKS, real HTTP), and tokens as
 * the Web UI would forward them.
 */
let server: Server;
let issuer: string;
let signingKey: SigningKey;
let otherKey: SigningKey;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  signingKey = pair.privateKey;
  otherKey = (await generateKeyPair('RS256')).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  server = createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    if (request.url === '/.well-known/openid-configuration')
      response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    else if (request.url === '/jwks') response.end(JSON.stringify({ keys: [jwk] }));
    else response.writeHead(404).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const token = ({ key = signingKey, audience = 'temporal-ui', expiresIn = '5m', iss = issuer } = {}) =>
  new SignJWT({ sub: 'operator@example.com' })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(iss)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(key);

describe("oidcVerifier: the Web UI's access token as a codec credential", () => {
  test('accepts a token signed by the issuer, for the audience, not expired', async () => {
    const verify = oidcVerifier({ issuer, audience: 'temporal-ui' });
    expect(await verify(await token())).toBe(true);
  });

  test('refuses another audience, another signer, another issuer, an expired token and garbage', async () => {
    const verify = oidcVerifier({ issuer, audience: 'temporal-ui' });
    expect(await verify(await token({ audience: 'someone-else' }))).toBe(false);
    expect(await verify(await token({ key: otherKey }))).toBe(false);
    expect(await verify(await token({ iss: 'https://evil.example' }))).toBe(false);
    expect(await verify(await token({ expiresIn: '-1m' }))).toBe(false);
    expect(await verify('not-a-jwt')).toBe(false);
  });
});
