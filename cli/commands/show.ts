import { WorkflowNotFoundError } from '@temporalio/client';
import type { Command } from 'commander';
import { commandSetup, withClient } from '../command-setup';
import { exitCodes } from '../exit-codes';
import { findTurn } from '../find-turn';
import { readResult } from '../read-result';
import { grantLines } from '../render/grant-text';
import { stateLines } from '../render/state-lines';
import { outputSectionLines } from '../render/structured-answer-text';
import { transcriptLines } from '../render/transcript-lines';
import { resultUsageLine } from '../render/usage-line';
import { showConversation } from '../show-conversation';

export function registerShowCommand({ program }: { program: Command }): void {
  program
    .command('show')
    .description(
      "a turn's state (running) or result with its transcript (finished); for a conversation's id, its turns in order",
    )
    .argument('<turn-id>', 'the turn (or conversation) to show')
    .action(async (turnId: string, _values: unknown, command: Command) => {
      const setup = commandSetup({ command });
      const { output, context } = setup;
      process.exitCode = await withClient({
        setup,
        run: async (connected) => {
          // An id no turn has may be a conversation's.
          const isTurn = await connected.client.client.workflow
            .getHandle(turnId)
            .describe()
            .then(
              () => true,
              (error: unknown) => {
                if (error instanceof WorkflowNotFoundError) return false;
                throw error;
              },
            );
          if (!isTurn && (await showConversation({ connected, conversationId: turnId, output })))
            return exitCodes.ok;
          const { handle, running, awaitingWorker, taskQueue } = await findTurn({ connected, turnId });
          // No worker has taken it: a query would wait for one until its deadline, then say nothing useful.
          if (awaitingWorker) {
            if (output.json) output.jsonLine({ turnId, running: true, awaitingWorker: true, taskQueue });
            else
              output.result(
                `turn ${turnId} is waiting for a worker: none has picked it up on task queue ${taskQueue} yet (\`${context.prefix} worker\` runs one)`,
              );
            return exitCodes.ok;
          }
          if (running) {
            const state = await handle.state();
            if (output.json) output.jsonLine({ turnId, running: true, state });
            else
              for (const line of stateLines({ view: state, colors: output.resultColors, context }))
                output.result(line);
            return exitCodes.ok;
          }
          const { events: _events, ...result } = await readResult({ handle });
          if (output.json) output.jsonLine({ turnId, running: false, result });
          else {
            const c = output.resultColors;
            output.result(
              `turn ${c.bold(turnId)} ${result.status}${result.reason ? `: ${result.reason}` : ''}`,
            );
            output.result(c.dim(resultUsageLine({ result })));
            if (result.output !== undefined)
              for (const line of outputSectionLines({ output: result.output, colors: c }))
                output.result(line);
            const grants = { grants: result.grants, turnId, colors: c, context, ended: true };
            for (const line of grantLines(grants)) output.result(line);
            output.result('');
            for (const line of transcriptLines({ transcript: result.transcript, colors: c }))
              output.result(line);
          }
          return exitCodes.ok;
        },
      });
    });
}
