import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addressOrigin, connectionConfigFromEnv } from './connection-config';
import { describeConnectionConfig } from './connection-config-describe';

// The Temporal CLI's config file, written as a user (or `temporal config set`) would.
const cliConfig = `
[profile.default]
address = "localhost:7233"
namespace = "dev"

[profile.prod]
address = "prod.a1b2c.tmprl.cloud:7233"
namespace = "prod.a1b2c"
api_key = "prod-secret"

[profile.prod.tls]
server_name = "prod.internal"

[profile.mtls]
address = "temporal.internal:7233"

[profile.mtls.tls]
client_cert_path = "/certs/client.pem"
`;

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'durable-turns-profile-'));
  file = path.join(dir, 'temporal.toml');
  writeFileSync(file, cliConfig);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const noDeprecations = { onDeprecated: () => {} };

test('TEMPORAL_CONFIG_FILE and TEMPORAL_PROFILE select a profile of the Temporal CLI config file', () => {
  const config = connectionConfigFromEnv({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' });

  expect(config).toEqual({
    address: 'prod.a1b2c.tmprl.cloud:7233',
    namespace: 'prod.a1b2c',
    taskQueue: 'durable-turns',
    apiKey: 'prod-secret',
    tls: { serverName: 'prod.internal' },
    profile: { name: 'prod', file, settings: ['address', 'namespace', 'api_key', 'tls.server_name'] },
  });
  // A profile with an address means "use that server", as the CLI does: ensureTemporal starts nothing.
  expect(addressOrigin({ config })).toBe(`address of profile "prod" in ${file}`);
  expect(describeConnectionConfig(config)).toBe(
    `address=prod.a1b2c.tmprl.cloud:7233 namespace=prod.a1b2c taskQueue=durable-turns tls=on apiKey=(set) profile=prod (${file})`,
  );
});

test('the variables override the profile, and the profile keeps the settings they leave alone', () => {
  const config = connectionConfigFromEnv({
    TEMPORAL_CONFIG_FILE: file,
    TEMPORAL_PROFILE: 'prod',
    TEMPORAL_ADDRESS: 'other.a1b2c.tmprl.cloud:7233',
    TEMPORAL_API_KEY: 'env-secret',
    DURABLE_TURNS_TASK_QUEUE: 'turns-eu',
  });

  expect(config).toMatchObject({
    address: 'other.a1b2c.tmprl.cloud:7233',
    namespace: 'prod.a1b2c',
    apiKey: 'env-secret',
    taskQueue: 'turns-eu',
    profile: { name: 'prod', settings: ['namespace', 'tls.server_name'] },
  });
  expect(addressOrigin({ config })).toBe('TEMPORAL_ADDRESS');
});

test('without TEMPORAL_PROFILE the default profile applies', () => {
  expect(connectionConfigFromEnv({ TEMPORAL_CONFIG_FILE: file })).toMatchObject({
    address: 'localhost:7233',
    namespace: 'dev',
    profile: { name: 'default' },
  });
});

test('without TEMPORAL_CONFIG_FILE the CLI default file is read, and none there means the embedded dev server', () => {
  const configHome = path.join(dir, 'config');
  expect(connectionConfigFromEnv({ XDG_CONFIG_HOME: configHome })).toEqual({
    namespace: 'default',
    taskQueue: 'durable-turns',
  });

  mkdirSync(path.join(configHome, 'temporalio'), { recursive: true });
  writeFileSync(path.join(configHome, 'temporalio', 'temporal.toml'), cliConfig);
  expect(connectionConfigFromEnv({ XDG_CONFIG_HOME: configHome, TEMPORAL_PROFILE: 'prod' })).toMatchObject({
    address: 'prod.a1b2c.tmprl.cloud:7233',
    profile: { name: 'prod', file: path.join(configHome, 'temporalio', 'temporal.toml') },
  });
});

test('a profile that is not in the file is an error naming it and the profiles there are', () => {
  expect(() => connectionConfigFromEnv({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'staging' })).toThrow(
    `TEMPORAL_PROFILE is "staging" but ${file} has no [profile.staging] (it has default, prod, mtls)`,
  );
  expect(() => connectionConfigFromEnv({ HOME: dir, TEMPORAL_PROFILE: 'staging' })).toThrow(
    `TEMPORAL_PROFILE is "staging" but there is no config file (looked for ${path.join(dir, '.config', 'temporalio', 'temporal.toml')})`,
  );
});

test('a TEMPORAL_CONFIG_FILE that does not exist is an error, not silently no profile', () => {
  const missing = path.join(dir, 'nope.toml');
  expect(() => connectionConfigFromEnv({ TEMPORAL_CONFIG_FILE: missing })).toThrow(
    `TEMPORAL_CONFIG_FILE points to ${missing}, which does not exist: fix the path or unset TEMPORAL_CONFIG_FILE`,
  );
});

test('a config file that is not TOML is an error naming the file', () => {
  writeFileSync(file, '[profile.default\naddress = ');
  expect(() => connectionConfigFromEnv({ TEMPORAL_CONFIG_FILE: file })).toThrow(
    `${file} is not a valid Temporal config file: Invalid TOML document`,
  );
});

test('a config file without profiles counts as no profile (envconfig alone throws a TypeError)', () => {
  writeFileSync(file, '# written by hand, nothing yet\n');
  expect(connectionConfigFromEnv({ TEMPORAL_CONFIG_FILE: file })).toEqual({
    namespace: 'default',
    taskQueue: 'durable-turns',
  });
});

test('bad values in the file are named by their key, profile and file', () => {
  writeFileSync(file, '[profile.default]\naddress = 7233\nnamespace = "a b"\n');
  const attempt = () => connectionConfigFromEnv({ TEMPORAL_CONFIG_FILE: file });
  expect(attempt).toThrow(`address in profile "default" of ${file} must be host:port`);
  expect(attempt).toThrow(`namespace in profile "default" of ${file} must be a namespace name`);
});

test('the cross checks hold for the merged profile: a certificate without its key, TLS turned off with files', () => {
  expect(() => connectionConfigFromEnv({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'mtls' })).toThrow(
    `tls.client_cert_path in profile "mtls" of ${file} and TEMPORAL_TLS_CLIENT_KEY_PATH must be set together`,
  );
  expect(() =>
    connectionConfigFromEnv(
      {
        TEMPORAL_CONFIG_FILE: file,
        TEMPORAL_PROFILE: 'mtls',
        TEMPORAL_TLS_KEY: '/k.pem',
        TEMPORAL_TLS: 'false',
      },
      noDeprecations,
    ),
  ).toThrow(
    `TEMPORAL_TLS is false but tls.client_cert_path in profile "mtls" of ${file}, TEMPORAL_TLS_KEY are set`,
  );
});
