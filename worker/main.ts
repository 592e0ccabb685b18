/**
 * A worker process configured from the environment (the same variables as the client and the
 * docker-compose file): TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, DURABLE_TURNS_TASK_QUEUE, TLS / API key,
 * or a Temporal CLI profile (TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE),
 * DURABLE_TURNS_AGENT — a module exporting `tools` and `models` (default: the demo agent) — and
 * DURABLE_TURNS_WORKFLOW_BUNDLE — a prebuilt workflow bundle (`durable-turns-bundle --out …`) that
 * must be usable (default: the one `npm run build` / `durable-turns-bundle` put in this package if
 * usable, else the workflow is bundled at start). DURABLE_TURNS_METRICS_PORT serves Prometheus metrics at
 * /metrics, DURABLE_TURNS_SDK_METRICS_PORT the Temporal SDK's (both off when unset; bound to
 * DURABLE_TURNS_METRICS_HOST, default 127.0.0.1).
 *
 *   node dist/worker/main.js        (or: npx tsx worker/main.ts)
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { NativeConnection } from '@temporalio/worker';
import type { AnyTool, TurnModel } from '../core';
import { addressOrigin, connectionConfigFromEnv, toConnectionOptions } from '../devserver';
import { metricsConfigFromEnv, startMetricsServer, TurnMetrics } from '../metrics';
import { installSdkMetrics } from '../metrics/install-sdk-metrics';
import { createTurnWorker } from './create-turn-worker';

interface AgentModule {
  tools: AnyTool[];
  models: TurnModel[] | Record<string, TurnModel>;
}

async function loadAgent(specifier: string | undefined): Promise<AgentModule> {
  const target = specifier ? path.resolve(specifier) : path.join(__dirname, '../examples/demo-agent');
  // import() of a bare path needs its extension (this file compiles to CommonJS, but import() stays
  // ESM); resolve it as require would, then import its URL, so the agent may be CommonJS or ESM.
  const loaded = (await import(pathToFileURL(require.resolve(target)).href)) as Partial<AgentModule> & {
    demoTools?: AnyTool[];
    demoModel?: TurnModel;
  };
  const tools = loaded.tools ?? loaded.demoTools;
  const models = loaded.models ?? (loaded.demoModel ? [loaded.demoModel] : undefined);
  if (!tools || !models)
    throw new Error(`DURABLE_TURNS_AGENT module ${target} must export \`tools\` and \`models\``);
  return { tools, models };
}

async function main() {
  const config = connectionConfigFromEnv();
  const metricsConfig = metricsConfigFromEnv({ env: process.env });
  // Before the connection: it would install the Temporal runtime without the exporter.
  if (metricsConfig.sdkMetrics) installSdkMetrics(metricsConfig.sdkMetrics);
  if (!config.address)
    throw new Error(
      'set TEMPORAL_ADDRESS (or address in the Temporal CLI profile) to the Temporal frontend (host:port) this worker should poll',
    );
  const connection = await NativeConnection.connect(await toConnectionOptions(config)).catch(
    (error: unknown) => {
      throw new Error(
        `cannot reach Temporal at ${config.address} (${addressOrigin({ config })}): ${error instanceof Error ? error.message : String(error)}`,
      );
    },
  );
  const agent = await loadAgent(process.env.DURABLE_TURNS_AGENT);
  const bundlePath = process.env.DURABLE_TURNS_WORKFLOW_BUNDLE?.trim();
  const metrics = metricsConfig.metrics ? new TurnMetrics() : undefined;
  const worker = await createTurnWorker({
    connection,
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    ...agent,
    ...(bundlePath ? { workflowBundlePath: bundlePath } : {}),
    ...(metrics ? { metrics } : {}),
  });
  const metricsServer =
    metrics && metricsConfig.metrics
      ? await startMetricsServer({ registry: metrics.registry, ...metricsConfig.metrics })
      : undefined;
  const bundle =
    worker.workflowBundle.kind === 'prebuilt'
      ? `prebuilt workflow bundle ${worker.workflowBundle.path}`
      : 'workflow bundled at start';
  console.log(
    `durable-turns worker polling ${config.taskQueue} on ${config.address} (namespace ${config.namespace}; ${bundle})`,
  );
  if (metricsServer) console.log(`durable-turns metrics at ${metricsServer.url}`);
  if (metricsConfig.sdkMetrics) {
    const { host, port } = metricsConfig.sdkMetrics;
    console.log(`Temporal SDK metrics at http://${host}:${port}/metrics`);
  }
  await worker.run();
  await metricsServer?.close();
  await connection.close();
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
