import type { Command } from 'commander';
import { renderFleetHealth } from '../../client';
import { commandSetup, withClient } from '../command-setup';
import { exitCodes } from '../exit-codes';

export function registerHealthCommand({ program }: { program: Command }): void {
  program
    .command('health')
    .description(
      "tool health across the task queue's live workers: attempts, failures, latency, circuit state, per worker",
    )
    .action(async (_values: Record<string, unknown>, command: Command) => {
      const setup = commandSetup({ command });
      const { output } = setup;
      process.exitCode = await withClient({
        setup,
        run: async (connected) => {
          const view = await connected.client.fleetHealth();
          if (output.json) {
            output.jsonLine({ namespace: connected.namespace, ...view });
            return exitCodes.ok;
          }
          output.result(renderFleetHealth({ view, color: output.resultColors.isColorSupported }));
          return exitCodes.ok;
        },
      });
    });
}
