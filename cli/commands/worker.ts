import type { Command } from 'commander';
import { z } from 'zod';
import { toConnectionOptions } from '../../devserver';
import { CliError } from '../cli-error';
import { commandSetup } from '../command-setup';
import { exitCodes } from '../exit-codes';
import { loadAgent, modelNames, toolNames } from '../load-agent';
import { parseFlags } from '../parse-flags';
import { workerMetricsFromEnv, workerMetricsUrls } from '../worker-metrics';

const workerFlagsSchema = z.object({
  agent: z.string().min(1).optional(),
  workflowBundle: z.string().min(1).optional(),
});

export function registerWorkerCommand({ program }: { program: Command }): void {
  program
    .command('worker')
    .description(
      "run a worker for an agent module (exports `tools` and `models`) until Ctrl-C / SIGTERM; DURABLE_TURNS_METRICS_PORT serves its Prometheus metrics, DURABLE_TURNS_SDK_METRICS_PORT the Temporal SDK's (host: DURABLE_TURNS_METRICS_HOST, default 127.0.0.1)",
    )
    .option('--agent <module>', 'the agent module (default: DURABLE_TURNS_AGENT, else the demo agent)')
    .option(
      '--workflow-bundle <path>',
      "a prebuilt workflow bundle (durable-turns-bundle --out); default: DURABLE_TURNS_WORKFLOW_BUNDLE, else the package's own if usable, else bundled at start",
    )
    .action(async (values: Record<string, unknown>, command: Command) => {
      // Loaded here, not at start: the Temporal worker SDK adds half a second to every other command.
      const { startAgentWorker } = require('../start-agent-worker') as typeof import('../start-agent-worker');
      const setup = commandSetup({ command });
      const flags = parseFlags({ schema: workerFlagsSchema, values });
      const { output, settings } = setup;
      const agent = await loadAgent({
        specifier: flags.agent ?? (process.env.DURABLE_TURNS_AGENT?.trim() || undefined),
      });
      const connectionOptions = await toConnectionOptions(settings.config).catch((error: unknown) => {
        throw new CliError(error instanceof Error ? error.message : String(error), { cause: error });
      });
      // Unset, createTurnWorker reads DURABLE_TURNS_WORKFLOW_BUNDLE itself.
      const workflowBundlePath = flags.workflowBundle;
      const metrics = workerMetricsFromEnv();
      const { worker, connection, bundle, metricsServer } = await startAgentWorker({
        connectionOptions,
        origin: settings.origin,
        namespace: settings.config.namespace,
        taskQueue: settings.config.taskQueue,
        agent,
        ...(workflowBundlePath !== undefined && { workflowBundlePath }),
        metrics,
      });
      const { metricsUrl, sdkMetricsUrl } = workerMetricsUrls({ metrics, metricsServer });
      const ready = {
        address: settings.config.address,
        namespace: settings.config.namespace,
        taskQueue: settings.config.taskQueue,
        agent: agent.source,
        models: modelNames({ agent }),
        tools: toolNames({ agent }),
        bundle,
        ...(metricsUrl && { metricsUrl }),
        ...(sdkMetricsUrl && { sdkMetricsUrl }),
      };
      if (output.json) output.jsonLine({ worker: 'ready', ...ready });
      else
        output.progress(
          `durable-turns worker polling ${ready.taskQueue} on ${ready.address} (namespace ${ready.namespace}; ${bundle}); models: ${ready.models.join(', ')}; tools: ${ready.tools.join(', ')}`,
        );
      if (!output.json) {
        if (metricsUrl) output.progress(`durable-turns metrics at ${metricsUrl}`);
        if (sdkMetricsUrl) output.progress(`Temporal SDK metrics at ${sdkMetricsUrl}`);
      }
      // The Temporal runtime shuts the worker down on SIGINT / SIGTERM; run() then resolves.
      try {
        await worker.run();
      } finally {
        // Its listening socket would keep the process alive after a worker failure too.
        await metricsServer?.close();
        // Its MCP servers end with the worker (stdio servers are child processes).
        await agent.mcp?.close();
      }
      await connection.close();
      process.exitCode = exitCodes.ok;
    });
}
