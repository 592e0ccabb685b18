import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectionConfigFromEnv, describeConnectionConfig, toConnectionOptions } from './connection-config';

test('with nothing set it means the embedded dev server, namespace default and task queue durable-turns', () => {
  expect(connectionConfigFromEnv({})).toEqual({ namespace: 'default', taskQueue: 'durable-turns' });
});

test('blank variables count as unset', () => {
  expect(
    connectionConfigFromEnv({ TEMPORAL_ADDRESS: ' ', TEMPORAL_NAMESPACE: '', TEMPORAL_TLS: '' }),
  ).toEqual({
    namespace: 'default',
    taskQueue: 'durable-turns',
  });
});

test('address, namespace and task queue are read from the environment', () => {
  expect(
    connectionConfigFromEnv({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'agents',
      DURABLE_TURNS_TASK_QUEUE: 'turns-eu',
    }),
  ).toEqual({ address: 'temporal:7233', namespace: 'agents', taskQueue: 'turns-eu' });
});

test('every bad variable is named in one error, with the value and what it should be', () => {
  expect(() => connectionConfigFromEnv({ TEMPORAL_ADDRESS: 'localhost', TEMPORAL_TLS: 'maybe' })).toThrow(
    /TEMPORAL_ADDRESS must be host:port.*\(got "localhost"\)\n.*TEMPORAL_TLS must be true or false \(got "maybe"\)/,
  );
});

test('an API key implies TLS unless TEMPORAL_TLS=false says otherwise', () => {
  const base = { TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_API_KEY: 'secret-key' };
  expect(connectionConfigFromEnv(base)).toMatchObject({ tls: true, apiKey: 'secret-key' });
  expect(connectionConfigFromEnv({ ...base, TEMPORAL_TLS: 'false' })).toMatchObject({ tls: false });
});

test('certificate files make a TLS object', () => {
  expect(
    connectionConfigFromEnv({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_TLS_CERT: '/certs/client.pem',
      TEMPORAL_TLS_KEY: '/certs/client.key',
      TEMPORAL_TLS_CA: '/certs/ca.pem',
      TEMPORAL_TLS_SERVER_NAME: 'temporal',
    }).tls,
  ).toEqual({
    clientCertPath: '/certs/client.pem',
    clientKeyPath: '/certs/client.key',
    serverRootCACertPath: '/certs/ca.pem',
    serverName: 'temporal',
  });
});

test('a certificate without its key is an error', () => {
  expect(() => connectionConfigFromEnv({ TEMPORAL_ADDRESS: 'a:1', TEMPORAL_TLS_CERT: '/c.pem' })).toThrow(
    'TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together',
  );
});

test('TEMPORAL_TLS=false with certificate files is a contradiction, not a guess', () => {
  expect(() =>
    connectionConfigFromEnv({ TEMPORAL_ADDRESS: 'a:1', TEMPORAL_TLS: 'false', TEMPORAL_TLS_CA: '/ca.pem' }),
  ).toThrow('TEMPORAL_TLS is false but TEMPORAL_TLS_CA is set');
});

test('TLS or API key settings without TEMPORAL_ADDRESS are an error rather than silently unused', () => {
  expect(() => connectionConfigFromEnv({ TEMPORAL_API_KEY: 'secret-key' })).toThrow(
    'TEMPORAL_API_KEY is set but TEMPORAL_ADDRESS is not',
  );
});

test('the API key never appears in the description or in errors', () => {
  const env = { TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_API_KEY: 'secret-key' };
  expect(describeConnectionConfig(connectionConfigFromEnv(env))).toBe(
    'address=ns.acct.tmprl.cloud:7233 namespace=default taskQueue=durable-turns tls=on apiKey=(set)',
  );
  expect(() => connectionConfigFromEnv({ ...env, TEMPORAL_ADDRESS: 'nope', TEMPORAL_TLS: 'x' })).toThrow(
    expect.objectContaining({ message: expect.not.stringContaining('secret-key') }),
  );
});

test('connection options carry the address, the API key and the certificate files read', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-turns-tls-'));
  try {
    await fs.writeFile(path.join(dir, 'client.pem'), 'CERT');
    await fs.writeFile(path.join(dir, 'client.key'), 'KEY');
    await fs.writeFile(path.join(dir, 'ca.pem'), 'CA');
    const config = connectionConfigFromEnv({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_TLS_CERT: path.join(dir, 'client.pem'),
      TEMPORAL_TLS_KEY: path.join(dir, 'client.key'),
      TEMPORAL_TLS_CA: path.join(dir, 'ca.pem'),
      TEMPORAL_TLS_SERVER_NAME: 'temporal',
      TEMPORAL_API_KEY: 'secret-key',
    });

    expect(await toConnectionOptions(config)).toEqual({
      address: 'temporal.internal:7233',
      apiKey: 'secret-key',
      tls: {
        serverNameOverride: 'temporal',
        clientCertPair: { crt: Buffer.from('CERT'), key: Buffer.from('KEY') },
        serverRootCACertificate: Buffer.from('CA'),
      },
    });
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test('an unreadable certificate file is reported with its variable and path', async () => {
  const config = connectionConfigFromEnv({ TEMPORAL_ADDRESS: 'a:1', TEMPORAL_TLS_CA: '/nowhere/ca.pem' });

  await expect(toConnectionOptions(config)).rejects.toThrow(
    'TEMPORAL_TLS_CA points to /nowhere/ca.pem, which cannot be read (ENOENT)',
  );
});

test('connection options need an address and say how to get one', async () => {
  await expect(toConnectionOptions(connectionConfigFromEnv({}))).rejects.toThrow(
    'set TEMPORAL_ADDRESS to an existing server (host:port), or call ensureTemporal()',
  );
});
