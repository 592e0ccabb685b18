import path from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { turnSearchAttributeList } from '../../contract/search-attributes';
import { ensureTemporal } from '../../devserver';
import { commandSetup } from '../command-setup';
import { countFlagSchema } from '../duration-flag';
import { exitCodes } from '../exit-codes';
import { loadAgent, modelNames } from '../load-agent';
import { parseFlags } from '../parse-flags';

const portSchema = countFlagSchema.pipe(z.number().max(65_535, 'a port is at most 65535'));
const devFlagsSchema = z.object({
  agent: z.string().min(1).optional(),
  port: portSchema.default(7233),
  uiPort: portSchema.default(8233),
  headless: z.boolean().default(false),
  stateDir: z.string().min(1).default('.state'),
});

export function registerDevCommand({ program }: { program: Command }): void {
  program
    .command('dev')
    .description(
      'the embedded Temporal dev server (Web UI on) and a worker for an agent module, until Ctrl-C',
    )
    .option('--agent <module>', 'the agent module: exports `tools` and `models` (default: the demo agent)')
    .option('--port <port>', 'gRPC port of the dev server (default 7233, where the other commands look)')
    .option('--ui-port <port>', 'Web UI port (default 8233)')
    .option('--headless', 'no Web UI')
    .option('--state-dir <dir>', 'where the SQLite file and the server log live (default .state)')
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
      const temporal = await ensureTemporal({
        env,
        searchAttributes: turnSearchAttributeList,
        stateDir: path.resolve(flags.stateDir),
        port: flags.port,
        headless: flags.headless,
        ...(!flags.headless && { uiPort: flags.uiPort }),
        log,
      });
      let stopped = false;
      const stopServer = async () => {
        if (stopped) return;
        stopped = true;
        await temporal.stop();
      };
      try {
        const { worker, connection } = await startAgentWorker({
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
          namespace: temporal.namespace,
          taskQueue: temporal.taskQueue,
          agent,
        });
        const models = modelNames({ agent });
        const ready = {
          address: temporal.address,
          namespace: temporal.namespace,
          taskQueue: temporal.taskQueue,
          ...(temporal.devServer?.uiUrl && { ui: temporal.devServer.uiUrl }),
          agent: agent.source,
          models,
          tools: agent.tools.map((t) => t.name),
        };
        if (output.json) output.jsonLine({ dev: 'ready', ...ready });
        else {
          const c = output.resultColors;
          const addressFlag = temporal.address === '127.0.0.1:7233' ? '' : ` --address ${temporal.address}`;
          output.result(
            `${c.green('ready')}  Temporal ${c.bold(temporal.address)} (namespace ${temporal.namespace})`,
          );
          if (ready.ui) output.result(`       Web UI   ${c.bold(ready.ui)}`);
          output.result(
            `       worker   task queue ${temporal.taskQueue}; models: ${models.join(', ')}; tools: ${ready.tools.join(', ')}`,
          );
          output.result(
            `try:   durable-turns${addressFlag} run --model ${models[0] ?? 'NAME'} "Summarise my week"`,
          );
          output.result(c.dim('Ctrl-C stops the worker and the server.'));
        }
        // Ctrl-C: the Temporal runtime shuts the worker down, run() resolves, then the server stops.
        await worker.run();
        await connection.close();
      } finally {
        await stopServer();
      }
      process.exitCode = exitCodes.ok;
    });
}
