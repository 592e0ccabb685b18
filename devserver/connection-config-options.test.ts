import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectionConfigFromEnv } from './connection-config';
import { toConnectionOptions } from './connection-config-options';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-turns-tls-'));
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

const fromEnv = (env: NodeJS.ProcessEnv) => connectionConfigFromEnv(env, { onDeprecated: () => {} });

test('connection options carry the address, the API key, the headers and the certificate files read', async () => {
  await fs.writeFile(path.join(dir, 'client.pem'), 'CERT');
  await fs.writeFile(path.join(dir, 'client.key'), 'KEY');
  await fs.writeFile(path.join(dir, 'ca.pem'), 'CA');
  const config = fromEnv({
    TEMPORAL_ADDRESS: 'temporal.internal:7233',
    TEMPORAL_TLS_CLIENT_CERT_PATH: path.join(dir, 'client.pem'),
    TEMPORAL_TLS_CLIENT_KEY_PATH: path.join(dir, 'client.key'),
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: path.join(dir, 'ca.pem'),
    TEMPORAL_TLS_SERVER_NAME: 'temporal',
    TEMPORAL_API_KEY: 'secret-key',
    TEMPORAL_GRPC_META_TENANT: 'eu',
  });

  expect(await toConnectionOptions(config)).toEqual({
    address: 'temporal.internal:7233',
    apiKey: 'secret-key',
    metadata: { tenant: 'eu' },
    tls: {
      serverNameOverride: 'temporal',
      clientCertPair: { crt: Buffer.from('CERT'), key: Buffer.from('KEY') },
      serverRootCACertificate: Buffer.from('CA'),
    },
  });
});

test('PEM given inline (the _DATA variables) is used as it is', async () => {
  const options = await toConnectionOptions(
    fromEnv({ TEMPORAL_ADDRESS: 'a:1', TEMPORAL_TLS_SERVER_CA_CERT_DATA: 'INLINE CA' }),
  );
  expect(options.tls).toMatchObject({ serverRootCACertificate: new TextEncoder().encode('INLINE CA') });
});

test('an API key implies TLS unless TEMPORAL_TLS=false says otherwise; nothing set means plain gRPC', async () => {
  const base = { TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_API_KEY: 'secret-key' };
  expect((await toConnectionOptions(fromEnv(base))).tls).toBe(true);
  expect((await toConnectionOptions(fromEnv({ ...base, TEMPORAL_TLS: 'false' }))).tls).toBe(false);
  expect(await toConnectionOptions(fromEnv({ TEMPORAL_ADDRESS: 'a:1' }))).toEqual({ address: 'a:1' });
});

test('an unreadable certificate file is reported with the variable or profile key that named it', async () => {
  await expect(
    toConnectionOptions(
      fromEnv({ TEMPORAL_ADDRESS: 'a:1', TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/nowhere/ca.pem' }),
    ),
  ).rejects.toThrow(
    'TEMPORAL_TLS_SERVER_CA_CERT_PATH points to /nowhere/ca.pem, which cannot be read (ENOENT)',
  );
  await expect(
    toConnectionOptions(fromEnv({ TEMPORAL_ADDRESS: 'a:1', TEMPORAL_TLS_CA: '/nowhere/ca.pem' })),
  ).rejects.toThrow('TEMPORAL_TLS_CA points to /nowhere/ca.pem');

  const file = path.join(dir, 'temporal.toml');
  await fs.writeFile(
    file,
    '[profile.default]\naddress = "a:1"\ntls.server_ca_cert_path = "/nowhere/ca.pem"\n',
  );
  await expect(toConnectionOptions(fromEnv({ TEMPORAL_CONFIG_FILE: file }))).rejects.toThrow(
    `tls.server_ca_cert_path in profile "default" of ${file} points to /nowhere/ca.pem, which cannot be read (ENOENT)`,
  );
});

test('connection options need an address and say how to get one', async () => {
  await expect(toConnectionOptions(fromEnv({}))).rejects.toThrow(
    'set TEMPORAL_ADDRESS to an existing server (host:port), or address in a Temporal CLI profile, or call ensureTemporal()',
  );
});
