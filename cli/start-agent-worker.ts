import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { blobStoreFromEnv } from '../blobs';
import type { ResolvedConnectionOptions } from '../devserver';
import { probeHttp2 } from '../devserver/probe-http2';
import { type MetricsConfig, type MetricsServer, startMetricsServer, TurnMetrics } from '../metrics';
import { installSdkMetrics } from '../metrics/install-sdk-metrics';
import { createTurnWorker } from '../worker';
import { checkEncryptionKeys } from './check-encryption-keys';
import { CliError } from './cli-error';
import type { AgentModule } from './load-agent';

export interface AgentWorker {
  worker: Worker;
  /** Which workflow code it runs: a prebuilt bundle (its path), or bundled at start. */
  bundle: string;
  connection: NativeConnection;
  /** Serving durable-turns' metrics, when asked for (close it after the worker). */
  metricsServer?: MetricsServer;
}

/** A turn worker for `agent`, connected (or failing within `timeoutMs`, naming the address). */
export async function startAgentWorker({
  connectionOptions,
  origin,
  namespace,
  taskQueue,
  agent,
  workflowBundlePath,
  metrics: metricsConfig = {},
  stateDir,
  timeoutMs = 5_000,
}: {
  connectionOptions: ResolvedConnectionOptions;
  /** Where the address came from, for messages. */
  origin: string;
  namespace: string;
  taskQueue: string;
  agent: AgentModule;
  /** A prebuilt workflow bundle that must be usable (see `createTurnWorker`). */
  workflowBundlePath?: string;
  /** Where to serve durable-turns' and the Temporal SDK's metrics (`metricsConfigFromEnv`). */
  metrics?: MetricsConfig;
  /** Where large files go unless `DURABLE_TURNS_BLOB_STORE` says (its `blobs` folder; default `.state`). */
  stateDir?: string;
  timeoutMs?: number;
}): Promise<AgentWorker> {
  checkEncryptionKeys();
  const { address } = connectionOptions;
  const unreachable = (reason: string, cause?: unknown) =>
    new CliError(
      `cannot reach Temporal at ${address} (${origin}): ${reason}. Start a server there (\`durable-turns dev\` runs one), or point --address / TEMPORAL_ADDRESS at a running one.`,
      { cause },
    );
  // The SDK's own log at warnings and up: its INFO lines would bury the CLI's.
  const logger = new DefaultLogger(process.env.DURABLE_TURNS_DEBUG ? 'INFO' : 'WARN');
  // One runtime per process, before the connection: with the SDK's metrics exporter when asked for.
  if (metricsConfig.sdkMetrics) installSdkMetrics({ ...metricsConfig.sdkMetrics, logger });
  else Runtime.install({ logger });
  const tls = connectionOptions.tls ?? (connectionOptions.apiKey === undefined ? undefined : true);
  const noAnswer = await probeHttp2({ address, tls, timeoutMs });
  if (noAnswer !== undefined) throw unreachable(noAnswer);
  const connection = await NativeConnection.connect(connectionOptions).catch((error: unknown) => {
    throw unreachable(error instanceof Error ? error.message : String(error), error);
  });
  const metrics = metricsConfig.metrics ? new TurnMetrics() : undefined;
  try {
    const worker = await createTurnWorker({
      connection,
      namespace,
      taskQueue,
      tools: agent.tools,
      ...(agent.mcp ? { mcp: agent.mcp } : {}),
      models: agent.models,
      ...(workflowBundlePath !== undefined && { workflowBundlePath }),
      ...(metrics && { metrics }),
      ...(stateDir !== undefined && { blobStore: blobStoreFromEnv({ stateDir }) }),
    });
    const metricsServer =
      metrics && metricsConfig.metrics
        ? await startMetricsServer({ registry: metrics.registry, ...metricsConfig.metrics })
        : undefined;
    const bundle =
      worker.workflowBundle.kind === 'prebuilt'
        ? `prebuilt workflow bundle ${worker.workflowBundle.path}`
        : 'workflow bundled at start';
    return { worker, connection, bundle, ...(metricsServer && { metricsServer }) };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
