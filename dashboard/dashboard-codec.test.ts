import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { EncryptionCodec } from '../codec/encryption-codec';
import { parseEncryptionKeys } from '../codec/encryption-keys';
import { withOfflineDashboard } from '../test/dashboard/offline-dashboard';
import { dashboardConfig } from './dashboard-config';

/**
 * The dashboard's `/codec` routes (the Web UI's codec endpoint) over real HTTP: they take the
 * dashboard's token, and a Web UI origin stands in for it only where `durable-turns dev` says so.
 */
const keys = parseEncryptionKeys(`k1:${randomBytes(32).toString('base64')}`);
const token = 'dashboard-token-0123456789abcdef';
const webUiUrl = 'http://127.0.0.1:8233';

async function decode(url: string, headers: Record<string, string>) {
  const [payload] = await new EncryptionCodec({ keys }).encode([defaultPayloadConverter.toPayload('secret')]);
  const body = {
    payloads: [
      {
        metadata: Object.fromEntries(
          Object.entries(payload?.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
        ),
        data: Buffer.from(payload?.data ?? []).toString('base64'),
      },
    ],
  };
  const response = await fetch(`${url}/codec/decode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

test("with a token, the dashboard's codec decodes for the token only: the Web UI's origin alone is refused", async () => {
  await withOfflineDashboard({ options: { token, webUiUrl }, encryption: keys }, async (url) => {
    const forged = await decode(url, { origin: webUiUrl });
    expect(forged.status).toBe(401);
    expect(forged.text).not.toContain('secret');
    const withToken = await decode(url, { authorization: `Bearer ${token}` });
    expect(withToken.status).toBe(200);
  });
});

test('as durable-turns dev runs it, the local Web UI decodes without a token, and only on loopback', async () => {
  await withOfflineDashboard(
    { options: { token, webUiUrl, webUiCodecWithoutToken: true }, encryption: keys },
    async (url) => {
      expect((await decode(url, { origin: webUiUrl })).status).toBe(200);
      expect((await decode(url, { origin: 'https://evil.example' })).status).toBe(401);
    },
  );
  expect(() =>
    dashboardConfig({
      options: { host: '0.0.0.0', token, behindTlsProxy: true, webUiCodecWithoutToken: true },
    }),
  ).toThrow('answer the Web UI without a token only on loopback');
});
