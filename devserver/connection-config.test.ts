import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  addressOrigin,
  connectionConfigFromEnv,
  connectionEnvVariables,
  deprecatedConnectionEnvVariables,
} from './connection-config';
import { describeConnectionConfig } from './connection-config-describe';

/** Reads `env` and collects the deprecation messages instead of warning. */
function read(env: NodeJS.ProcessEnv) {
  const deprecations: string[] = [];
  const config = connectionConfigFromEnv(env, { onDeprecated: (message) => deprecations.push(message) });
  return { config, deprecations };
}

test('with nothing set it means the embedded dev server, namespace default and task queue durable-turns', () => {
  expect(connectionConfigFromEnv({})).toEqual({ namespace: 'default', taskQueue: 'durable-turns' });
});

test('blank variables count as unset', () => {
  expect(
    connectionConfigFromEnv({
      TEMPORAL_ADDRESS: ' ',
      TEMPORAL_NAMESPACE: '',
      TEMPORAL_TLS: '',
      TEMPORAL_CONFIG_FILE: '',
    }),
  ).toEqual({ namespace: 'default', taskQueue: 'durable-turns' });
});

test('address, namespace and task queue are read from the environment', () => {
  const config = connectionConfigFromEnv({
    TEMPORAL_ADDRESS: 'temporal:7233',
    TEMPORAL_NAMESPACE: 'agents',
    DURABLE_TURNS_TASK_QUEUE: 'turns-eu',
  });
  expect(config).toEqual({ address: 'temporal:7233', namespace: 'agents', taskQueue: 'turns-eu' });
  expect(addressOrigin({ config })).toBe('TEMPORAL_ADDRESS');
});

test('every bad variable is named in one error, with the value and what it should be', () => {
  const attempt = () =>
    connectionConfigFromEnv({
      TEMPORAL_ADDRESS: 'localhost',
      TEMPORAL_TLS: 'maybe',
      TEMPORAL_NAMESPACE: 'a b',
    });
  expect(attempt).toThrow(/TEMPORAL_ADDRESS must be host:port, for example .*\(got "localhost"\)/);
  expect(attempt).toThrow('TEMPORAL_TLS must be true or false (got "maybe")');
  expect(attempt).toThrow('TEMPORAL_NAMESPACE must be a namespace name');
});

test('TEMPORAL_TLS takes true/false/1/0 in any case (envconfig alone reads TRUE as off)', () => {
  const tlsOf = (value: string) =>
    connectionConfigFromEnv({ TEMPORAL_ADDRESS: 'a:1', TEMPORAL_TLS: value }).tls;
  expect([tlsOf('TRUE'), tlsOf('1'), tlsOf('False'), tlsOf('0')]).toEqual([
    { disabled: false },
    { disabled: false },
    { disabled: true },
    { disabled: true },
  ]);
});

test('the Temporal CLI variable names give TLS files, each tagged with the variable that named it', () => {
  const { config, deprecations } = read({
    TEMPORAL_ADDRESS: 'temporal.internal:7233',
    TEMPORAL_TLS_CLIENT_CERT_PATH: '/certs/client.pem',
    TEMPORAL_TLS_CLIENT_KEY_PATH: '/certs/client.key',
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/certs/ca.pem',
    TEMPORAL_TLS_SERVER_NAME: 'temporal',
  });
  expect(config.tls).toEqual({
    clientCert: { path: '/certs/client.pem', setBy: 'TEMPORAL_TLS_CLIENT_CERT_PATH' },
    clientKey: { path: '/certs/client.key', setBy: 'TEMPORAL_TLS_CLIENT_KEY_PATH' },
    serverCACert: { path: '/certs/ca.pem', setBy: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH' },
    serverName: 'temporal',
  });
  expect(deprecations).toEqual([]);
});

test('the old names TEMPORAL_TLS_CERT, _KEY and _CA still work, each with a message naming its replacement', () => {
  const { config, deprecations } = read({
    TEMPORAL_ADDRESS: 'a:1',
    TEMPORAL_TLS_CERT: '/c.pem',
    TEMPORAL_TLS_KEY: '/c.key',
    TEMPORAL_TLS_CA: '/ca.pem',
  });
  expect(config.tls).toEqual({
    clientCert: { path: '/c.pem', setBy: 'TEMPORAL_TLS_CERT' },
    clientKey: { path: '/c.key', setBy: 'TEMPORAL_TLS_KEY' },
    serverCACert: { path: '/ca.pem', setBy: 'TEMPORAL_TLS_CA' },
  });
  expect(deprecations).toEqual([
    expect.stringMatching(/^TEMPORAL_TLS_CERT is deprecated: rename it to TEMPORAL_TLS_CLIENT_CERT_PATH/),
    expect.stringMatching(/^TEMPORAL_TLS_KEY is deprecated: rename it to TEMPORAL_TLS_CLIENT_KEY_PATH/),
    expect.stringMatching(/^TEMPORAL_TLS_CA is deprecated: rename it to TEMPORAL_TLS_SERVER_CA_CERT_PATH/),
  ]);
});

test('an old name and its new name set to different files is an error; to the same file it is not', () => {
  expect(() =>
    read({
      TEMPORAL_ADDRESS: 'a:1',
      TEMPORAL_TLS_CA: '/old.pem',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/new.pem',
    }),
  ).toThrow(
    'TEMPORAL_TLS_CA ("/old.pem") and TEMPORAL_TLS_SERVER_CA_CERT_PATH ("/new.pem") disagree: ' +
      'TEMPORAL_TLS_CA is the old name of TEMPORAL_TLS_SERVER_CA_CERT_PATH; unset TEMPORAL_TLS_CA',
  );
  const same = read({
    TEMPORAL_ADDRESS: 'a:1',
    TEMPORAL_TLS_CA: '/ca.pem',
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/ca.pem',
  });
  expect(same.config.tls?.serverCACert).toMatchObject({ path: '/ca.pem' });
  expect(same.deprecations).toHaveLength(1);
});

test('by default each old name is reported once per process, as a Node DeprecationWarning, before an exit', async () => {
  // A child process: the warning goes to the real stderr, and "once" is per process.
  const script = `
    const { connectionConfigFromEnv } = require(${JSON.stringify(path.join(__dirname, 'connection-config'))});
    const env = { TEMPORAL_ADDRESS: 'a:1', TEMPORAL_TLS_CERT: '/c.pem', TEMPORAL_TLS_KEY: '/c.key' };
    connectionConfigFromEnv(env);
    connectionConfigFromEnv(env);
    // As a CLI does on a settings error: the warning must be out by then.
    process.exit(0);`;
  const { stderr } = await promisify(execFile)(process.execPath, ['--require', 'tsx/cjs', '-e', script], {
    cwd: path.join(__dirname, '..'),
  });
  const warnings = stderr.split('\n').filter((line) => line.includes('DeprecationWarning'));
  expect(warnings).toEqual([
    expect.stringContaining(
      'DeprecationWarning: TEMPORAL_TLS_CERT is deprecated: rename it to TEMPORAL_TLS_CLIENT_CERT_PATH',
    ),
    expect.stringContaining(
      'DeprecationWarning: TEMPORAL_TLS_KEY is deprecated: rename it to TEMPORAL_TLS_CLIENT_KEY_PATH',
    ),
  ]);
});

test('a certificate without its key is an error, naming the variables as they were set', () => {
  expect(() => read({ TEMPORAL_ADDRESS: 'a:1', TEMPORAL_TLS_CLIENT_CERT_PATH: '/c.pem' })).toThrow(
    'TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH must be set together',
  );
  expect(() => read({ TEMPORAL_ADDRESS: 'a:1', TEMPORAL_TLS_CERT: '/c.pem' })).toThrow(
    'TEMPORAL_TLS_CERT and TEMPORAL_TLS_CLIENT_KEY_PATH must be set together',
  );
});

test('TEMPORAL_TLS=false with certificate files is a contradiction, not a guess', () => {
  expect(() =>
    read({ TEMPORAL_ADDRESS: 'a:1', TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/ca.pem' }),
  ).toThrow('TEMPORAL_TLS is false but TEMPORAL_TLS_SERVER_CA_CERT_PATH is set: unset them or turn TLS on');
});

test('TLS or API key settings without an address are an error rather than silently unused', () => {
  expect(() => read({ TEMPORAL_API_KEY: 'secret-key' })).toThrow(
    'TEMPORAL_API_KEY is set but TEMPORAL_ADDRESS is not',
  );
  expect(() => read({ TEMPORAL_TLS_SERVER_NAME: 'x', TEMPORAL_TLS_CA: '/ca.pem' })).toThrow(
    'TEMPORAL_TLS_SERVER_NAME, TEMPORAL_TLS_CA are set but TEMPORAL_ADDRESS is not',
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

test('gRPC headers come from TEMPORAL_GRPC_META_* variables', () => {
  expect(
    connectionConfigFromEnv({ TEMPORAL_ADDRESS: 'a:1', TEMPORAL_GRPC_META_X_TENANT: 'eu' }).grpcMeta,
  ).toEqual({ 'x-tenant': 'eu' });
});

test('the variables listed as read are the Temporal CLI names and ours, not the deprecated ones', () => {
  expect(connectionEnvVariables).toEqual(
    expect.arrayContaining([
      'TEMPORAL_CONFIG_FILE',
      'TEMPORAL_PROFILE',
      'TEMPORAL_ADDRESS',
      'TEMPORAL_NAMESPACE',
      'TEMPORAL_API_KEY',
      'TEMPORAL_TLS',
      'TEMPORAL_TLS_CLIENT_CERT_PATH',
      'TEMPORAL_TLS_CLIENT_KEY_PATH',
      'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
      'TEMPORAL_TLS_SERVER_NAME',
      'DURABLE_TURNS_TASK_QUEUE',
    ]),
  );
  for (const old of Object.keys(deprecatedConnectionEnvVariables))
    expect(connectionEnvVariables).not.toContain(old);
});
