import { randomBytes } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Command } from 'commander';
import { z } from 'zod';
import { conversationIdSchema, turnIdSchema } from '../../core';
import { CliError } from '../cli-error';
import { commandSetup, withClient } from '../command-setup';
import { exitCodes } from '../exit-codes';
import { finishTurn } from '../finish-turn';
import { followTurn } from '../follow-turn';
import { parseFlags } from '../parse-flags';
import { addTurnConfigOptions, turnConfigFlagsSchema, turnConfigOf } from '../turn-config-flags';
import { warnIfNoWorker } from '../warn-if-no-worker';

const runFlagsSchema = turnConfigFlagsSchema.extend({
  model: z.string().min(1, 'name a model the worker has (see `durable-turns dev` or the agent module)'),
  turnId: turnIdSchema.optional(),
  conversation: conversationIdSchema.optional(),
  detach: z.boolean().default(false),
});

export function registerRunCommand({ program }: { program: Command }): void {
  const run = program
    .command('run')
    .description('start a turn and show it live until it ends (exit code by its final status)')
    .argument('<input>', "the user's message")
    .requiredOption('--model <name>', 'the model to ask, by the name the worker registered it under')
    .option('--turn-id <id>', 'the turn id (default: a new one); a running turn with this id is attached to')
    .option('--conversation <id>', 'the conversation the turn belongs to (for `list --conversation`)');
  addTurnConfigOptions(run)
    .option('--detach', 'print the turn id and return without watching')
    .action(async (input: string, values: Record<string, unknown>, command: Command) => {
      const setup = commandSetup({ command });
      const flags = parseFlags({ schema: runFlagsSchema, values });
      const { output } = setup;
      if (input.trim() === '')
        throw new CliError('the input is empty: say what the turn should do', { exitCode: exitCodes.usage });
      const config = await turnConfigOf(flags);
      const turnId = flags.turnId ?? `turn-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
      process.exitCode = await withClient({
        setup,
        run: async (connected) => {
          await warnIfNoWorker({ connected, output });
          const handle = await connected.client
            .start({
              turnId,
              input,
              model: flags.model,
              ...(flags.conversation && { conversationId: flags.conversation }),
              ...config,
            })
            .catch((error: unknown) => {
              // The client's message names its own API (attach); say it in commands.
              if (error instanceof Error && error.cause instanceof WorkflowExecutionAlreadyStartedError)
                throw new CliError(
                  `turn ${turnId} already exists, and a turn id runs once: \`${setup.context.prefix} watch ${turnId}\` follows it or shows how it went; leave out --turn-id for a new turn`,
                  { cause: error },
                );
              throw new CliError(error instanceof Error ? error.message : String(error), { cause: error });
            });
          if (flags.detach) {
            if (output.json)
              output.jsonLine({ turnId, namespace: connected.namespace, taskQueue: connected.taskQueue });
            else output.result(turnId);
            return exitCodes.ok;
          }
          if (!output.json)
            output.progress(
              output.colors.dim(
                `turn ${turnId} started (model ${flags.model}, task queue ${connected.taskQueue}, namespace ${connected.namespace} on ${connected.address})`,
              ),
            );
          await followTurn({
            handle,
            output,
            context: setup.context,
            taskQueue: connected.taskQueue,
          });
          return finishTurn({ handle, output });
        },
      });
    });
}
