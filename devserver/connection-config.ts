import type { ClientConfigTLS } from '@temporalio/envconfig';
import { checkConnectionProfile, profileEnvVariables, settingOrigins } from './connection-config-check';
import {
  deprecatedConnectionEnvVariables,
  normalizeConnectionEnv,
  warnDeprecatedOnce,
} from './connection-config-env';
import { loadConnectionProfile } from './connection-config-file';
import { TemporalSetupError } from './temporal-setup-error';

/** A certificate or key: a file that {@link toConnectionOptions} reads, or PEM given inline. */
export type TlsMaterial = { path: string; setBy: string } | { data: Uint8Array };

/** TLS as the profile gives it; `setBy` names the variable or profile key of each file, for errors. */
export interface TlsSettings extends Pick<ClientConfigTLS, 'disabled' | 'serverName'> {
  clientCert?: TlsMaterial;
  clientKey?: TlsMaterial;
  serverCACert?: TlsMaterial;
}

/** Where and how to reach Temporal: the Temporal CLI's client profile, plus our task queue. */
export interface ConnectionConfig {
  /** `host:port` of an existing server; unset means "start the embedded dev server". */
  address?: string;
  namespace: string;
  taskQueue: string;
  /** Unset means plain gRPC, unless there is an API key (which implies TLS). */
  tls?: TlsSettings;
  /** Sent as a bearer token; never printed (see `describeConnectionConfig`). */
  apiKey?: string;
  /** gRPC headers (`TEMPORAL_GRPC_META_*`, `[profile.x.grpc_meta]`). */
  grpcMeta?: Record<string, string>;
  /** Set when a config file profile supplied settings; `settings` lists its keys still in force. */
  profile?: { name: string; file: string; settings: string[] };
}

/**
 * Every variable {@link connectionConfigFromEnv} reads by name, e.g. to check that a deployment sets
 * no misspelled one; `TEMPORAL_GRPC_META_<HEADER>` also counts, and so, for now, do the old names in
 * `deprecatedConnectionEnvVariables`.
 */
export const connectionEnvVariables: readonly string[] = [
  'TEMPORAL_CONFIG_FILE',
  'TEMPORAL_PROFILE',
  ...profileEnvVariables,
  'DURABLE_TURNS_TASK_QUEUE',
];

export { deprecatedConnectionEnvVariables };

/**
 * Reads the connection settings the way the Temporal CLI and SDKs do (`@temporalio/envconfig`):
 * the profile `TEMPORAL_PROFILE` (default `default`) of the config file `TEMPORAL_CONFIG_FILE`
 * (default: the CLI's, `~/.config/temporalio/temporal.toml` on Linux), overridden by the
 * variables:
 *
 * | variable | profile key | meaning |
 * |---|---|---|
 * | `TEMPORAL_ADDRESS` | `address` | `host:port` of an existing server; none starts the embedded dev server |
 * | `TEMPORAL_NAMESPACE` | `namespace` | default `default` |
 * | `TEMPORAL_API_KEY` | `api_key` | API key (Temporal Cloud); implies TLS unless TLS is turned off |
 * | `TEMPORAL_TLS` | `tls.disabled` (inverted) | `true`/`false`; implied by the settings below |
 * | `TEMPORAL_TLS_CLIENT_CERT_PATH`, `TEMPORAL_TLS_CLIENT_KEY_PATH` | `tls.client_cert_path`, … | client certificate and key (mTLS), set together; `_DATA` variants take PEM |
 * | `TEMPORAL_TLS_SERVER_CA_CERT_PATH` | `tls.server_ca_cert_path` | CA for a server certificate the system does not trust |
 * | `TEMPORAL_TLS_SERVER_NAME` | `tls.server_name` | name to check the server certificate against |
 * | `DURABLE_TURNS_TASK_QUEUE` | — | default `durable-turns` |
 *
 * Blank variables count as unset. The old `TEMPORAL_TLS_CERT`, `TEMPORAL_TLS_KEY` and
 * `TEMPORAL_TLS_CA` still work, each reported once to `onDeprecated` (default: a Node
 * `DeprecationWarning`). Throws a {@link TemporalSetupError} that names every bad variable or
 * profile key and what it should hold.
 */
export function connectionConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  { onDeprecated = warnDeprecatedOnce }: { onDeprecated?: (message: string) => void } = {},
): ConnectionConfig {
  const normalized = normalizeConnectionEnv({ env });
  for (const message of normalized.deprecations) onDeprecated(message);
  const loaded = loadConnectionProfile({ env: normalized.env });
  if ('problems' in loaded) throw settingsError([...normalized.problems, ...loaded.problems]);

  const { profile } = loaded;
  const origins = settingOrigins({
    env: normalized.env,
    setAs: normalized.setAs,
    fromFile: loaded.fromFile,
    profileName: loaded.name,
    file: loaded.file,
  });
  const problems = [...normalized.problems, ...checkConnectionProfile({ profile, label: origins.label })];
  if (problems.length > 0) throw settingsError(problems);

  const material = (source: ClientConfigTLS['clientCert'], setting: Parameters<typeof origins.label>[0]) =>
    source === undefined
      ? undefined
      : 'path' in source
        ? { path: source.path, setBy: origins.label(setting) }
        : { data: typeof source.data === 'string' ? new TextEncoder().encode(source.data) : source.data };
  const tls = profile.tls && {
    ...(profile.tls.disabled !== undefined && { disabled: profile.tls.disabled }),
    ...(profile.tls.serverName !== undefined && { serverName: profile.tls.serverName }),
    ...(profile.tls.clientCert && { clientCert: material(profile.tls.clientCert, 'tls.clientCert') }),
    ...(profile.tls.clientKey && { clientKey: material(profile.tls.clientKey, 'tls.clientKey') }),
    ...(profile.tls.serverCACert && { serverCACert: material(profile.tls.serverCACert, 'tls.serverCACert') }),
  };
  return {
    ...(profile.address !== undefined && { address: profile.address }),
    namespace: profile.namespace ?? 'default',
    taskQueue: normalized.env.DURABLE_TURNS_TASK_QUEUE ?? 'durable-turns',
    ...(tls !== undefined && { tls }),
    ...(profile.apiKey !== undefined && { apiKey: profile.apiKey }),
    ...(profile.grpcMeta !== undefined &&
      Object.keys(profile.grpcMeta).length > 0 && { grpcMeta: profile.grpcMeta }),
    ...(origins.fromFile.length > 0 && {
      profile: { name: loaded.name, file: loaded.file, settings: origins.fromFile },
    }),
  };
}

/** Names where the address came from, for messages: the variable, or the profile that gave it. */
export function addressOrigin({ config }: { config: ConnectionConfig }): string {
  return config.profile?.settings.includes('address')
    ? `address of profile "${config.profile.name}" in ${config.profile.file}`
    : 'TEMPORAL_ADDRESS';
}

function settingsError(problems: string[]): TemporalSetupError {
  return new TemporalSetupError(
    `Invalid Temporal connection settings:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
  );
}
