import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { EncryptionCodec } from './encryption-codec';
import { parseEncryptionKeys } from './encryption-keys';
import { type CodecServer, startCodecServer } from './start-codec-server';

/**
 * The codec server over real HTTP, called as the Temporal Web UI calls it: proto3-JSON payloads,
 * `X-Namespace`, the bearer token (`passAccessToken`), CORS preflights from the UI's origin.
 */
const keys = parseEncryptionKeys(`k1:${randomBytes(32).toString('base64')}`);
const token = 'codec-token-0123456789abcdefghij';
const uiOrigin = 'http://127.0.0.1:8233';
let server: CodecServer;

beforeAll(async () => {
  server = await startCodecServer({
    keys,
    host: '127.0.0.1',
    port: 0,
    access: { token, origins: [uiOrigin] },
  });
});
afterAll(() => server.close());

const wire = (payloads: Payload[]) => ({
  payloads: payloads.map((p) => ({
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    ),
    data: Buffer.from(p.data ?? []).toString('base64'),
  })),
});
const values = (body: ReturnType<typeof wire>) =>
  body.payloads.map((p) =>
    defaultPayloadConverter.fromPayload({
      metadata: Object.fromEntries(Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
      data: Buffer.from(p.data, 'base64'),
    }),
  );

async function post(route: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** What a worker wrote to history: values encrypted by the same codec. */
const sealed = async (...items: unknown[]) =>
  wire(await new EncryptionCodec({ keys }).encode(items.map((v) => defaultPayloadConverter.toPayload(v))));

describe('the codec server', () => {
  test('decodes what a worker encoded, for a caller with the token, at /decode and /<namespace>/decode', async () => {
    const body = await sealed({ card: '4111 secret' }, 'the model said this');
    for (const route of ['/decode', '/default/decode']) {
      const answer = await post(route, body, { authorization: `Bearer ${token}` });
      expect(answer.status).toBe(200);
      expect(values(answer.body as ReturnType<typeof wire>)).toEqual([
        { card: '4111 secret' },
        'the model said this',
      ]);
    }
  });

  test('encodes, so the UI can send encrypted input; what it encodes decodes back', async () => {
    const encoded = await post('/encode', wire([defaultPayloadConverter.toPayload({ approve: 'yes' })]), {
      authorization: `Bearer ${token}`,
    });
    expect(JSON.stringify(encoded.body)).not.toContain('approve');
    const decoded = await post('/decode', encoded.body, { authorization: `Bearer ${token}` });
    expect(values(decoded.body as ReturnType<typeof wire>)).toEqual([{ approve: 'yes' }]);
  });

  test('refuses a request without the authorization header, or with another token (401), and decodes nothing', async () => {
    const body = await sealed('secret');
    const refused: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-the-token' },
      { origin: 'https://evil.example' },
    ];
    for (const headers of refused) {
      const answer = await post('/decode', body, headers);
      expect(answer.status).toBe(401);
      expect(JSON.stringify(answer.body)).not.toContain('secret');
    }
  });

  test("with a token set, the Web UI's origin does not stand in for it: any local process can send that header", async () => {
    const body = await sealed('not for a forged origin');
    const decode = await post('/decode', body, { origin: uiOrigin });
    expect(decode.status).toBe(401);
    expect(JSON.stringify(decode.body)).not.toContain('forged');
    expect(
      (await post('/encode', wire([defaultPayloadConverter.toPayload('x')]), { origin: uiOrigin })).status,
    ).toBe(401);
  });

  test('refuses a caller without access before reading its body: a 16 MB upload is answered after its headers', async () => {
    const { hostname, port } = new URL(server.url);
    const answered = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        {
          host: hostname,
          port,
          method: 'POST',
          path: '/decode',
          headers: { 'content-type': 'application/json', 'content-length': String(16 * 1024 * 1024) },
        },
        (response) => {
          resolve(response.statusCode ?? 0);
          request.destroy();
        },
      );
      request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
      // Headers only: the body never comes, so only an answer given before it can arrive.
      request.flushHeaders();
    });
    expect(answered).toBe(401);
  });

  test("a preflight from the UI's origin is allowed with its headers; another origin gets no CORS grant", async () => {
    const preflight = (origin: string) =>
      fetch(`${server.url}/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-namespace,authorization',
        },
      });
    const allowed = await preflight(uiOrigin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(uiOrigin);
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-namespace');
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    const other = await preflight('https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('a payload under a key it lacks is a 422 naming the key id; a malformed body a 400', async () => {
    const foreign = wire(
      await new EncryptionCodec({
        keys: parseEncryptionKeys(`k0:${randomBytes(32).toString('base64')}`),
      }).encode([defaultPayloadConverter.toPayload('x')]),
    );
    const missing = await post('/decode', foreign, { authorization: `Bearer ${token}` });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatch(/key k0/);
    const malformed = await post(
      '/decode',
      { payloads: [{ data: 'not base64!' }] },
      { authorization: `Bearer ${token}` },
    );
    expect(malformed.status).toBe(400);
  });
});

test("with no token configured, the dev Web UI's own origin on this machine needs none (its UI cannot send one); another origin does", async () => {
  const open = await startCodecServer({ keys, host: '127.0.0.1', port: 0, access: { origins: [uiOrigin] } });
  try {
    const body = await sealed('for the dev UI');
    const ask = (origin: string) =>
      fetch(`${open.url}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify(body),
      });
    const allowed = await ask(uiOrigin);
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(uiOrigin);
    expect(values((await allowed.json()) as ReturnType<typeof wire>)).toEqual(['for the dev UI']);
    expect((await ask('https://evil.example')).status).toBe(401);
  } finally {
    await open.close();
  }
});

test("with an identity provider configured, the Web UI's forwarded access token is accepted once it verifies", async () => {
  const verified: string[] = [];
  const oidc = await startCodecServer({
    keys,
    host: '127.0.0.1',
    port: 0,
    access: {
      origins: [uiOrigin],
      verifyAccessToken: async (presented) => {
        verified.push(presented);
        return presented === 'a-valid-ui-access-token';
      },
    },
  });
  try {
    const call = (authorization: string) =>
      fetch(`${oidc.url}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-namespace': 'default', authorization },
        body: JSON.stringify({ payloads: [] }),
      });
    expect((await call('Bearer a-valid-ui-access-token')).status).toBe(200);
    expect((await call('Bearer forged')).status).toBe(401);
    expect(verified).toEqual(['a-valid-ui-access-token', 'forged']);
  } finally {
    await oidc.close();
  }
});
