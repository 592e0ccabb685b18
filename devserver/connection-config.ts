import { promises as fs } from 'node:fs';
import type { ConnectionOptions } from '@temporalio/client';
import { z } from 'zod';
import { errorMessage } from './error-message';
import { TemporalSetupError } from './temporal-setup-error';

/** TLS settings as file paths; {@link toConnectionOptions} reads the files. */
export interface TlsFiles {
  /** Overrides the name checked against the server certificate (SNI). */
  serverName?: string;
  clientCertPath?: string;
  clientKeyPath?: string;
  serverRootCACertPath?: string;
}

/** Where and how to reach Temporal, as configured by environment variables. */
export interface ConnectionConfig {
  /** `host:port` of an existing server; unset means "start the embedded dev server". */
  address?: string;
  namespace: string;
  taskQueue: string;
  /** `true` for TLS with system roots, an object for mTLS or a private CA. */
  tls?: TlsFiles | boolean;
  /** Sent as a bearer token; never printed (see {@link describeConnectionConfig}). */
  apiKey?: string;
}

/** Empty or blank variables count as unset: `FOO= npm start` should not mean `FOO=""`. */
const optionalText = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
  z.string().trim().optional(),
);

const hostPort = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/;

const envSchema = z.object({
  TEMPORAL_ADDRESS: optionalText.refine(
    (value) => value === undefined || (hostPort.test(value) && Number(value.split(':').pop()) <= 65_535),
    'must be host:port, for example 127.0.0.1:7233 or my-namespace.a1b2c.tmprl.cloud:7233',
  ),
  TEMPORAL_NAMESPACE: optionalText.refine(
    (value) => value === undefined || /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value),
    'must be a namespace name (letters, digits, ".", "-", "_"), for example default',
  ),
  DURABLE_TURNS_TASK_QUEUE: optionalText.refine(
    (value) => value === undefined || value.length <= 1000,
    'must be at most 1000 characters',
  ),
  TEMPORAL_TLS: optionalText.refine(
    (value) => value === undefined || /^(true|false|1|0)$/i.test(value),
    'must be true or false',
  ),
  TEMPORAL_TLS_CERT: optionalText,
  TEMPORAL_TLS_KEY: optionalText,
  TEMPORAL_TLS_CA: optionalText,
  TEMPORAL_TLS_SERVER_NAME: optionalText,
  TEMPORAL_API_KEY: optionalText,
});

type Env = z.infer<typeof envSchema>;

/** Every variable {@link connectionConfigFromEnv} reads, e.g. to check a deployment sets no misspelled one. */
export const connectionEnvVariables: readonly string[] = Object.keys(envSchema.shape);

/**
 * Reads the connection settings from the environment (the same variables in a terminal, a test
 * run and docker-compose):
 *
 * | variable | meaning |
 * |---|---|
 * | `TEMPORAL_ADDRESS` | `host:port` of an existing server; unset starts the embedded dev server |
 * | `TEMPORAL_NAMESPACE` | default `default` |
 * | `DURABLE_TURNS_TASK_QUEUE` | default `durable-turns` |
 * | `TEMPORAL_TLS` | `true`/`false`; implied by the settings below |
 * | `TEMPORAL_TLS_CERT`, `TEMPORAL_TLS_KEY` | client certificate and key files (mTLS), set together |
 * | `TEMPORAL_TLS_CA` | CA file for a server certificate the system does not trust |
 * | `TEMPORAL_TLS_SERVER_NAME` | name to check the server certificate against |
 * | `TEMPORAL_API_KEY` | API key (Temporal Cloud); implies TLS unless `TEMPORAL_TLS=false` |
 *
 * Throws a {@link TemporalSetupError} that names every bad variable and what it should hold.
 */
export function connectionConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ConnectionConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw settingsError(
      parsed.error.issues.map((issue) => {
        const variable = String(issue.path[0]);
        return `${variable} ${issue.message} (got ${JSON.stringify(env[variable])})`;
      }),
    );
  }
  const vars = parsed.data;
  const problems = crossCheck(vars);
  if (problems.length > 0) throw settingsError(problems);

  const tlsFlag = vars.TEMPORAL_TLS === undefined ? undefined : /^(true|1)$/i.test(vars.TEMPORAL_TLS);
  const files: TlsFiles = {
    ...(vars.TEMPORAL_TLS_SERVER_NAME && { serverName: vars.TEMPORAL_TLS_SERVER_NAME }),
    ...(vars.TEMPORAL_TLS_CERT && { clientCertPath: vars.TEMPORAL_TLS_CERT }),
    ...(vars.TEMPORAL_TLS_KEY && { clientKeyPath: vars.TEMPORAL_TLS_KEY }),
    ...(vars.TEMPORAL_TLS_CA && { serverRootCACertPath: vars.TEMPORAL_TLS_CA }),
  };
  const tls =
    Object.keys(files).length > 0
      ? files
      : (tlsFlag ?? (vars.TEMPORAL_API_KEY === undefined ? undefined : true));

  return {
    ...(vars.TEMPORAL_ADDRESS && { address: vars.TEMPORAL_ADDRESS }),
    namespace: vars.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: vars.DURABLE_TURNS_TASK_QUEUE ?? 'durable-turns',
    ...(tls !== undefined && { tls }),
    ...(vars.TEMPORAL_API_KEY && { apiKey: vars.TEMPORAL_API_KEY }),
  };
}

function crossCheck(vars: Env): string[] {
  const problems: string[] = [];
  const tlsFiles = (
    ['TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_CA', 'TEMPORAL_TLS_SERVER_NAME'] as const
  ).filter((name) => vars[name] !== undefined);
  if ((vars.TEMPORAL_TLS_CERT === undefined) !== (vars.TEMPORAL_TLS_KEY === undefined)) {
    problems.push(
      'TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together (the client certificate and its private key)',
    );
  }
  if (vars.TEMPORAL_TLS !== undefined && /^(false|0)$/i.test(vars.TEMPORAL_TLS) && tlsFiles.length > 0) {
    problems.push(
      `TEMPORAL_TLS is false but ${tlsFiles.join(', ')} ${tlsFiles.length > 1 ? 'are' : 'is'} set: unset them or set TEMPORAL_TLS=true`,
    );
  }
  if (vars.TEMPORAL_ADDRESS === undefined) {
    // The embedded dev server speaks plain gRPC on loopback: these would silently do nothing.
    const serverOnly = [...tlsFiles, ...(vars.TEMPORAL_API_KEY === undefined ? [] : ['TEMPORAL_API_KEY'])];
    if (serverOnly.length > 0) {
      problems.push(
        `${serverOnly.join(', ')} ${serverOnly.length > 1 ? 'are' : 'is'} set but TEMPORAL_ADDRESS is not: ` +
          'set TEMPORAL_ADDRESS to the server they are for, or unset them to use the embedded dev server',
      );
    }
  }
  return problems;
}

function settingsError(problems: string[]): TemporalSetupError {
  return new TemporalSetupError(
    `Invalid Temporal connection settings in the environment:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
  );
}

/**
 * `@temporalio/client` connection options for `config`, with the TLS files read. Needs an address:
 * without `TEMPORAL_ADDRESS`, use `ensureTemporal()`, which starts the dev server and fills it in.
 */
export async function toConnectionOptions(config: ConnectionConfig): Promise<ConnectionOptions> {
  if (config.address === undefined) {
    throw new TemporalSetupError(
      'No Temporal address: set TEMPORAL_ADDRESS to an existing server (host:port), ' +
        'or call ensureTemporal() to start the embedded dev server.',
    );
  }
  return {
    address: config.address,
    ...(config.tls !== undefined && {
      tls: typeof config.tls === 'boolean' ? config.tls : await readTls(config.tls),
    }),
    ...(config.apiKey !== undefined && { apiKey: config.apiKey }),
  };
}

async function readTls(
  files: TlsFiles,
): Promise<Exclude<ConnectionOptions['tls'], boolean | null | undefined>> {
  const [crt, key, ca] = await Promise.all([
    readSetting({ variable: 'TEMPORAL_TLS_CERT', file: files.clientCertPath }),
    readSetting({ variable: 'TEMPORAL_TLS_KEY', file: files.clientKeyPath }),
    readSetting({ variable: 'TEMPORAL_TLS_CA', file: files.serverRootCACertPath }),
  ]);
  return {
    ...(files.serverName !== undefined && { serverNameOverride: files.serverName }),
    ...(crt !== undefined && key !== undefined && { clientCertPair: { crt, key } }),
    ...(ca !== undefined && { serverRootCACertificate: ca }),
  };
}

async function readSetting({
  variable,
  file,
}: {
  variable: string;
  file: string | undefined;
}): Promise<Buffer | undefined> {
  if (file === undefined) return undefined;
  try {
    return await fs.readFile(file);
  } catch (error) {
    const reason =
      typeof error === 'object' && error !== null && 'code' in error
        ? String(error.code)
        : errorMessage({ error });
    throw new TemporalSetupError(
      `${variable} points to ${file}, which cannot be read (${reason}). Fix the path.`,
      {
        cause: error,
      },
    );
  }
}

/** One line for logs: where we connect and how, with the API key shown only as "set". */
export function describeConnectionConfig(config: ConnectionConfig): string {
  const tls =
    config.tls === undefined || config.tls === false
      ? 'off'
      : config.tls === true
        ? 'on'
        : config.tls.clientCertPath
          ? 'mTLS'
          : 'on';
  return [
    `address=${config.address ?? '(embedded dev server)'}`,
    `namespace=${config.namespace}`,
    `taskQueue=${config.taskQueue}`,
    `tls=${tls}`,
    ...(config.apiKey === undefined ? [] : ['apiKey=(set)']),
  ].join(' ');
}
