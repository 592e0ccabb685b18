import type { Command } from 'commander';
import { commandSetup, withClient } from '../command-setup';
import { findTurn } from '../find-turn';
import { finishTurn } from '../finish-turn';
import { followTurn } from '../follow-turn';
import { replayFinishedTurn } from '../replay-finished-turn';

export function registerWatchCommand({ program }: { program: Command }): void {
  program
    .command('watch')
    .description(
      'show a turn live until it ends (a finished one: how it went); exit code by its final status',
    )
    .argument('<turn-id>', 'the turn to watch')
    .action(async (turnId: string, _values: unknown, command: Command) => {
      const setup = commandSetup({ command });
      process.exitCode = await withClient({
        setup,
        run: async (connected) => {
          const { handle, running } = await findTurn({ connected, turnId });
          if (running)
            await followTurn({
              handle,
              output: setup.output,
              context: setup.context,
              taskQueue: connected.taskQueue,
            });
          // A finished turn's queries need a worker to replay it; its result needs none.
          else await replayFinishedTurn({ handle, output: setup.output, context: setup.context });
          return finishTurn({ handle, output: setup.output });
        },
      });
    });
}
