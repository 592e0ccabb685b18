import type { Command } from 'commander';
import { CliError } from '../cli-error';
import { commandSetup, withClient } from '../command-setup';
import { exitCodes } from '../exit-codes';
import { findTurn } from '../find-turn';

export function registerCancelCommand({ program }: { program: Command }): void {
  program
    .command('cancel')
    .description('ask a running turn to stop: open calls get interrupted outputs, the turn ends cancelled')
    .argument('<turn-id>', 'the turn to cancel')
    .action(async (turnId: string, _values: unknown, command: Command) => {
      const setup = commandSetup({ command });
      const { output, context } = setup;
      process.exitCode = await withClient({
        setup,
        run: async (connected) => {
          const { handle, running, endedAs, awaitingWorker, taskQueue } = await findTurn({
            connected,
            turnId,
          });
          if (!running)
            throw new CliError(`turn ${turnId} already ended (${endedAs}); there is nothing to cancel`);
          await handle.cancel();
          if (output.json)
            output.jsonLine({ turnId, cancelRequested: true, ...(awaitingWorker && { awaitingWorker }) });
          else if (awaitingWorker)
            // The request is recorded, but nothing changes until a worker takes the turn: say so.
            output.result(
              `cancel requested for turn ${turnId}; no worker has picked it up on task queue ${taskQueue} yet: it ends cancelled when one does`,
            );
          else
            output.result(
              `cancel requested for turn ${turnId}; \`${context.prefix} watch ${turnId}\` follows it to its end`,
            );
          return exitCodes.ok;
        },
      });
    });
}
