/**
 * The embedded default Temporal: find, build or download the Temporal CLI, run
 * `temporal server start-dev` with a SQLite file, or use an existing server named by
 * `TEMPORAL_ADDRESS`. Node only.
 */
export {
  addressOrigin,
  type ConnectionConfig,
  connectionConfigFromEnv,
  connectionEnvVariables,
  deprecatedConnectionEnvVariables,
  type TlsMaterial,
  type TlsSettings,
} from './connection-config';
export { describeConnectionConfig } from './connection-config-describe';
export { type ResolvedConnectionOptions, toConnectionOptions } from './connection-config-options';
export { defaultCacheDir } from './default-cache-dir';
export {
  ensureSearchAttributes,
  type SearchAttributeSpec,
  type SearchAttributeTypeName,
  searchAttributeCommands,
} from './ensure-search-attributes';
export { type EnsuredTemporal, type EnsureTemporalOptions, ensureTemporal } from './ensure-temporal';
export { fastQueueReaderConfig } from './fast-queue-readers';
export {
  type ResolvedTemporalCli,
  type ResolveTemporalCliOptions,
  resolveTemporalCli,
  type TemporalCliSource,
} from './resolve-temporal-cli';
export { type DevServer, type StartDevServerOptions, startDevServer } from './start-dev-server';
export { temporalCliVersion } from './temporal-cli-version';
export { TemporalSetupError } from './temporal-setup-error';
