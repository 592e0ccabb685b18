import { Connection, type ConnectionOptions, isGrpcServiceError } from '@temporalio/client';
import { addressOrigin, connectionConfigFromEnv } from './connection-config';
import { describeConnectionConfig } from './connection-config-describe';
import { toConnectionOptions } from './connection-config-options';
import { ensureSearchAttributes } from './ensure-search-attributes';
import { errorMessage } from './error-message';
import { probeHttp2 } from './probe-http2';
import { resolveTemporalCli } from './resolve-temporal-cli';
import { type DevServer, type StartDevServerOptions, startDevServer } from './start-dev-server';
import { TemporalSetupError } from './temporal-setup-error';

export interface EnsureTemporalOptions extends Omit<StartDevServerOptions, 'namespace'> {
  /**
   * Connection settings (see `connectionConfigFromEnv`: variables, and the Temporal CLI profile they
   * select) and CLI lookup; defaults to `process.env`.
   */
  env?: NodeJS.ProcessEnv;
  /** How long an existing server (`TEMPORAL_ADDRESS` or a profile's address) gets to answer. */
  connectTimeoutMs?: number;
}

/** A Temporal server to use, started here or found through `TEMPORAL_ADDRESS` or a profile. */
export interface EnsuredTemporal {
  address: string;
  namespace: string;
  taskQueue: string;
  /** Ready for `Connection.connect` / `NativeConnection.connect` (TLS files already read). */
  connectionOptions: ConnectionOptions;
  /** Set when we started the embedded dev server. */
  devServer?: DevServer;
  /** Stops the dev server if we started one; leaves an existing server alone. */
  stop(): Promise<void>;
}

/**
 * Gives the caller a Temporal server to use. With an address (`TEMPORAL_ADDRESS`, or `address` in
 * the Temporal CLI profile: a profile that names a server means "use it", as the CLI would), it
 * starts nothing: it checks that the server answers within `connectTimeoutMs` (a wrong address fails
 * in seconds naming the address and where it came from, never hangs) and that the namespace and
 * search attributes exist. Without one, it finds or builds the Temporal CLI and starts the embedded
 * dev server.
 */
export async function ensureTemporal({
  env = process.env,
  connectTimeoutMs = 5_000,
  log,
  cliPath,
  searchAttributes,
  ...startOptions
}: EnsureTemporalOptions): Promise<EnsuredTemporal> {
  const config = connectionConfigFromEnv(env);

  if (config.address !== undefined) {
    const connectionOptions = await toConnectionOptions(config);
    const origin = addressOrigin({ config });
    log(`Using the Temporal server from ${origin}: ${describeConnectionConfig(config)}`);
    await checkExistingServer({
      connectionOptions,
      address: config.address,
      origin,
      namespace: config.namespace,
      timeoutMs: connectTimeoutMs,
      onReady: (connection) =>
        ensureSearchAttributes({ connection, namespace: config.namespace, searchAttributes, log }),
    });
    return {
      address: config.address,
      namespace: config.namespace,
      taskQueue: config.taskQueue,
      connectionOptions,
      stop: async () => {},
    };
  }

  const started = Date.now();
  const devServer = await startDevServer({
    ...startOptions,
    cliPath: cliPath ?? (await resolveTemporalCli({ log, env })).path,
    namespace: config.namespace,
    searchAttributes,
    log,
  });
  log(
    `Temporal dev server ready at ${devServer.address} (namespace ${devServer.namespace}) in ${Date.now() - started} ms; ` +
      `state ${devServer.dbFile}, log ${devServer.logFile}${devServer.uiUrl ? `, UI ${devServer.uiUrl}` : ''}`,
  );
  return {
    address: devServer.address,
    namespace: devServer.namespace,
    taskQueue: config.taskQueue,
    connectionOptions: { address: devServer.address },
    devServer,
    stop: () => devServer.stop(),
  };
}

async function checkExistingServer({
  connectionOptions,
  address,
  origin,
  namespace,
  timeoutMs,
  onReady,
}: {
  connectionOptions: ConnectionOptions;
  address: string;
  /** The variable or profile the address came from. */
  origin: string;
  namespace: string;
  timeoutMs: number;
  onReady: (connection: Connection) => Promise<void>;
}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const unreachable = (reason: string, cause?: unknown) =>
    new TemporalSetupError(
      `Could not reach Temporal at ${address} (${origin}): ${reason}. ` +
        `Start that server, fix ${origin} (and its TLS settings), or unset it to use ` +
        'the embedded dev server.',
      { cause },
    );
  // The API key implies TLS, as in the SDK's own connection.
  const tls = connectionOptions.tls ?? (connectionOptions.apiKey === undefined ? undefined : true);
  const noAnswer = await probeHttp2({ address, tls, timeoutMs });
  if (noAnswer !== undefined) throw unreachable(noAnswer);

  // `lazy` + `ensureConnected` rather than `connect`: a failed `connect` leaves its gRPC channel
  // behind with nothing to close it.
  const remaining = () => Math.max(1_000, deadline - Date.now());
  const connection = Connection.lazy({ ...connectionOptions, connectTimeout: remaining() });
  try {
    await connection.ensureConnected();
  } catch (error) {
    await connection.close();
    throw unreachable(`${reasonOf(error)} (waited ${timeoutMs} ms)`, error);
  }
  try {
    try {
      await connection.withDeadline(Date.now() + remaining(), () =>
        connection.workflowService.describeNamespace({ namespace }),
      );
    } catch (error) {
      // 5 = NOT_FOUND: the server answers, the namespace is missing.
      if (isGrpcServiceError(error) && error.code === 5) {
        throw new TemporalSetupError(
          `Namespace ${namespace} does not exist on the Temporal server at ${address}. Create it ` +
            `(temporal operator namespace create --namespace ${namespace} --address ${address}) ` +
            'or set TEMPORAL_NAMESPACE to one that exists.',
          { cause: error },
        );
      }
      throw new TemporalSetupError(
        `The Temporal server at ${address} (${origin}) did not describe namespace ${namespace}: ` +
          `${reasonOf(error)}. Check TEMPORAL_NAMESPACE and the TLS / API key settings.`,
        { cause: error },
      );
    }
    await connection.withDeadline(Date.now() + remaining(), () => onReady(connection));
  } finally {
    await connection.close();
  }
}

function reasonOf(error: unknown): string {
  if (isGrpcServiceError(error)) return error.details || error.message;
  const cause = typeof error === 'object' && error !== null && 'cause' in error ? error.cause : undefined;
  return cause === undefined
    ? errorMessage({ error })
    : `${errorMessage({ error })}: ${errorMessage({ error: cause })}`;
}
