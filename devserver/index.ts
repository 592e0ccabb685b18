/**
 * The embedded default Temporal: find, build or download the Temporal CLI, run
 * `temporal server start-dev` with a SQLite file, or use an existing server named by
 * `TEMPORAL_ADDRESS`. Node only.
 */
export {
  type ConnectionConfig,
  connectionConfigFromEnv,
  connectionEnvVariables,
  describeConnectionConfig,
  type TlsFiles,
  toConnectionOptions,
} from './connection-config';
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
