import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Connection, type ConnectionOptions } from '@temporalio/client';
import type { Command } from 'commander';
import { z } from 'zod';
import { encryptionKeysFromEnv } from '../../codec/encryption-keys';
import { turnSearchAttributeList } from '../../contract/search-attributes';
import { tokenEnvVar } from '../../dashboard/dashboard-config';
import { ensureTemporal } from '../../devserver';
import { checkEncryptionKeys } from '../check-encryption-keys';
import { commandSetup } from '../command-setup';
import { portFlagSchema as portSchema } from '../dashboard-flags';
import { exitCodes } from '../exit-codes';
import { holdPort } from '../hold-port';
import { loadAgent, modelNames, toolNames } from '../load-agent';
import { parseFlags } from '../parse-flags';
import { workerMetricsFromEnv, workerMetricsUrls } from '../worker-metrics';

const devFlagsSchema = z.object({
  agent: z.string().min(1).optional(),
  port: portSchema.default(7233),
  uiPort: portSchema.default(8233),
  headless: z.boolean().default(false),
  stateDir: z.string().min(1).default('.state'),
  dashboardPort: portSchema.default(8234),
});

export function registerDevCommand({ program }: { program: Command }): void {
  program
    .command('dev')
    .description(
      "the embedded Temporal dev server (Web UI on) and a worker for an agent module, until Ctrl-C; the worker's metrics as for `worker` (DURABLE_TURNS_METRICS_PORT, DURABLE_TURNS_SDK_METRICS_PORT)",
    )
    .option('--agent <module>', 'the agent module: exports `tools` and `models` (default: the demo agent)')
    .option('--port <port>', 'gRPC port of the dev server (default 7233, where the other commands look)')
    .option('--ui-port <port>', 'Web UI port (default 8233)')
    .option('--headless', 'no Web UI')
    .option('--state-dir <dir>', 'where the SQLite file and the server log live (default .state)')
    .option('--dashboard-port <port>', 'dashboard port on 127.0.0.1 (default 8234)')
    .action(async (values: Record<string, unknown>, command: Command) => {
      // Loaded here, not at start: the Temporal worker SDK adds half a second to every other command.
      const { startAgentWorker } = require('../start-agent-worker') as typeof import('../start-agent-worker');
      const setup = commandSetup({ command });
      const flags = parseFlags({ schema: devFlagsSchema, values });
      const { output } = setup;
      const log = (line: string) => output.progress(output.colors.dim(line));
      const agent = await loadAgent({ specifier: flags.agent });
      // --address / TEMPORAL_ADDRESS name a server to use instead of starting one.
      const env = {
        ...process.env,
        ...(setup.flags.address && { TEMPORAL_ADDRESS: setup.flags.address }),
        ...(setup.flags.namespace && { TEMPORAL_NAMESPACE: setup.flags.namespace }),
        ...(setup.flags.taskQueue && { DURABLE_TURNS_TASK_QUEUE: setup.flags.taskQueue }),
      };
      checkEncryptionKeys();
      const metrics = workerMetricsFromEnv();
      // Held while the server starts, so none of the ports it picks at random is the dashboard's.
      const dashboardPortHold = await holdPort({ port: flags.dashboardPort });
      const temporal = await ensureTemporal({
        env,
        searchAttributes: turnSearchAttributeList,
        stateDir: path.resolve(flags.stateDir),
        port: flags.port,
        headless: flags.headless,
        ...(!flags.headless && { uiPort: flags.uiPort }),
        // With keys, the Web UI decodes through the dashboard's codec routes.
        ...(encryptionKeysFromEnv() && { uiCodecEndpoint: `http://127.0.0.1:${flags.dashboardPort}/codec` }),
        log,
      }).catch(async (error: unknown) => {
        await dashboardPortHold?.release();
        throw error;
      });
      let stopped = false;
      const stopServer = async () => {
        if (stopped) return;
        stopped = true;
        await temporal.stop();
      };
      try {
        const { worker, connection, metricsServer } = await startAgentWorker({
          connectionOptions: {
            address: temporal.address,
            ...(temporal.connectionOptions.tls != null && { tls: temporal.connectionOptions.tls }),
            ...(temporal.connectionOptions.apiKey !== undefined &&
              typeof temporal.connectionOptions.apiKey === 'string' && {
                apiKey: temporal.connectionOptions.apiKey,
              }),
            ...(temporal.connectionOptions.metadata && {
              metadata: temporal.connectionOptions.metadata as Record<string, string>,
            }),
          },
          origin: temporal.devServer ? 'the dev server just started' : setup.settings.origin,
          stateDir: path.resolve(flags.stateDir),
          namespace: temporal.namespace,
          taskQueue: temporal.taskQueue,
          agent,
          metrics,
        });
        const { metricsUrl, sdkMetricsUrl } = workerMetricsUrls({ metrics, metricsServer });
        await dashboardPortHold?.release();
        const dashboard = await startDevDashboard({
          connectionOptions: temporal.connectionOptions,
          address: temporal.address,
          namespace: temporal.namespace,
          taskQueue: temporal.taskQueue,
          port: flags.dashboardPort,
          ...(temporal.devServer?.uiUrl && { webUiUrl: temporal.devServer.uiUrl }),
          log,
        });
        const models = modelNames({ agent });
        const ready = {
          address: temporal.address,
          namespace: temporal.namespace,
          taskQueue: temporal.taskQueue,
          ...(temporal.devServer?.uiUrl && { ui: temporal.devServer.uiUrl }),
          ...(dashboard && { dashboard: dashboard.url, dashboardLogin: dashboard.loginUrl }),
          agent: agent.source,
          models,
          tools: toolNames({ agent }),
          ...(metricsUrl && { metricsUrl }),
          ...(sdkMetricsUrl && { sdkMetricsUrl }),
        };
        if (output.json) output.jsonLine({ dev: 'ready', ...ready });
        else {
          const c = output.resultColors;
          const addressFlag = temporal.address === '127.0.0.1:7233' ? '' : ` --address ${temporal.address}`;
          output.result(
            `${c.green('ready')}  Temporal ${c.bold(temporal.address)} (namespace ${temporal.namespace})`,
          );
          if (ready.ui) output.result(`       Web UI   ${c.bold(ready.ui)}`);
          if (dashboard) output.result(`       dashboard ${c.bold(dashboard.loginUrl)}`);
          output.result(
            `       worker   task queue ${temporal.taskQueue}; models: ${models.join(', ')}; tools: ${ready.tools.join(', ')}`,
          );
          if (metricsUrl) output.result(`       metrics  ${c.bold(metricsUrl)}`);
          if (sdkMetricsUrl) output.result(`       SDK metrics ${c.bold(sdkMetricsUrl)}`);
          output.result(
            `try:   durable-turns${addressFlag} run --model ${models[0] ?? 'NAME'} "Summarise my week"`,
          );
          output.result(c.dim('Ctrl-C stops the worker and the server.'));
        }
        // Ctrl-C: the Temporal runtime shuts the worker down, run() resolves, then the server stops.
        try {
          await worker.run();
        } finally {
          // Their listening sockets would keep the process alive after a worker failure too.
          await dashboard?.close();
          await metricsServer?.close();
          // Its MCP servers end with the worker (stdio servers are child processes).
          await agent.mcp?.close();
        }
        await connection.close();
      } finally {
        await dashboardPortHold?.release();
        await stopServer();
      }
      process.exitCode = exitCodes.ok;
    });
}

/**
 * The dashboard beside the Web UI, with a token made up for this run when none is set, so actions
 * work in development too; the login URL carries it in its fragment, which the browser never sends.
 * A port in use leaves dev without a dashboard (a warning says so), not without a server.
 */
async function startDevDashboard({
  connectionOptions,
  address,
  namespace,
  taskQueue,
  port,
  webUiUrl,
  log,
}: {
  connectionOptions: ConnectionOptions;
  address: string;
  namespace: string;
  taskQueue: string;
  port: number;
  webUiUrl?: string;
  log: (line: string) => void;
}): Promise<{ url: string; loginUrl: string; close: () => Promise<void> } | undefined> {
  const { startDashboard } =
    require('../../dashboard/start-dashboard') as typeof import('../../dashboard/start-dashboard');
  const { TurnClient } = require('../../client/turn-client') as typeof import('../../client/turn-client');
  const token = process.env[tokenEnvVar]?.trim() || randomBytes(24).toString('base64url');
  const connection = await Connection.connect(connectionOptions);
  try {
    const dashboard = await startDashboard({
      client: new TurnClient({ connection, namespace, taskQueue }),
      upstream: { address, namespace },
      // Its Web UI decodes through the dashboard without a token: a development server on this machine.
      options: { port, token, webUiCodecWithoutToken: true, ...(webUiUrl && { webUiUrl }) },
      portFlag: '--dashboard-port',
    });
    return {
      url: dashboard.url,
      loginUrl: `${dashboard.url}/login#token=${encodeURIComponent(token)}`,
      close: async () => {
        await dashboard.close();
        await connection.close();
      },
    };
  } catch (error) {
    await connection.close();
    log(`no dashboard: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
