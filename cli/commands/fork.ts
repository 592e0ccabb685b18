import { randomBytes } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Command } from 'commander';
import { z } from 'zod';
import { turnIdSchema } from '../../core';
import { CliError } from '../cli-error';
import { commandSetup, withClient } from '../command-setup';
import { exitCodes } from '../exit-codes';
import { finishTurn } from '../finish-turn';
import { followTurn } from '../follow-turn';
import { forkFlagsHelp, forkPointOf, forkPointText, outputEditsOf } from '../fork-flags';
import { checkForkPoint, editedOutputs, readForkSource } from '../fork-source';
import { collect } from '../grant-flags';
import { parseFlags } from '../parse-flags';
import { addTurnConfigOptions, turnConfigFlagsSchema, turnConfigOf } from '../turn-config-flags';
import { warnIfNoWorker } from '../warn-if-no-worker';

const forkFlagsSchema = turnConfigFlagsSchema.extend({
  at: z.string(),
  turnId: turnIdSchema.optional(),
  model: z.string().min(1).optional(),
  message: z
    .string()
    .refine((text) => text.trim() !== '', 'the message is empty')
    .optional(),
  output: z.array(z.string()).default([]),
  follow: z.boolean().default(false),
});

export function registerForkCommand({ program }: { program: Command }): void {
  const fork = program
    .command('fork')
    .description(
      "start a new turn from a past position of a finished one: its record up to there is the new turn's own (nothing of it runs again), and the model goes on from there",
    )
    .argument('<turn-id>', 'the finished turn to fork')
    .requiredOption('--at <point>', forkFlagsHelp.at)
    .option('--turn-id <id>', "the new turn's id (default: <turn-id>-fork-<random>)")
    .option('--model <name>', "the model to ask (default: the source turn's)")
    .option('--message <text>', "the user's next message, which the model reads after the record")
    .option('--output <call=value>', forkFlagsHelp.output, collect)
    .option('--follow', 'show the new turn live until it ends, as run does (exit code by its final status)');
  addTurnConfigOptions(fork)
    .addHelpText(
      'after',
      "\nThe source's configuration (budget, dispatch, approvals, output schema) is not kept with its\nrecord: the fork runs under these flags, those of `run`, and the defaults for the rest.\nIts budget counts its own work only.",
    )
    .action(async (from: string, values: Record<string, unknown>, command: Command) => {
      const setup = commandSetup({ command });
      const { output, context } = setup;
      const flags = parseFlags({ schema: forkFlagsSchema, values });
      const at = forkPointOf(flags.at);
      const edits = await outputEditsOf(flags.output);
      const config = await turnConfigOf(flags);
      const turnId = flags.turnId ?? `${from}-fork-${randomBytes(3).toString('hex')}`;
      process.exitCode = await withClient({
        setup,
        run: async (connected) => {
          const source = await readForkSource({ connected, turnId: from, context });
          checkForkPoint({ source: source.result, at });
          const model = flags.model ?? source.model;
          if (model === undefined)
            throw new CliError(
              `the model of turn ${from} is not known (it began before workers recorded it): name one with --model`,
              { exitCode: exitCodes.usage },
            );
          await warnIfNoWorker({ connected, output });
          const handle = await connected.client
            .fork({
              from,
              at,
              turnId,
              model,
              // A running turn of that id is someone else's: never attach the fork to it.
              ifRunning: 'fail',
              ...config,
              ...(edits.size > 0 && { outputs: editedOutputs({ source: source.result, edits }) }),
              ...(flags.message !== undefined && { message: flags.message }),
            })
            .catch((error: unknown) => {
              if (error instanceof Error && error.cause instanceof WorkflowExecutionAlreadyStartedError)
                throw new CliError(
                  `turn ${turnId} already exists, and a turn id runs once: leave out --turn-id for a new one`,
                  { cause: error },
                );
              // What is wrong with the point or an edit, in the fork's own words (the client's own
              // checks throw plain errors; the server's go to withClient, which names the server).
              if (error instanceof Error && Object.getPrototypeOf(error) === Error.prototype)
                throw new CliError(`cannot fork turn ${from}: ${error.message}`, { cause: error });
              throw error;
            });
          const started = `turn ${turnId} forked from ${from} ${forkPointText(at)} (model ${model})`;
          if (!flags.follow) {
            if (output.json)
              output.jsonLine({
                turnId,
                from,
                at,
                model,
                namespace: connected.namespace,
                taskQueue: connected.taskQueue,
              });
            else {
              output.progress(
                output.colors.dim(`${started}; \`${context.prefix} watch ${turnId}\` follows it`),
              );
              output.result(turnId);
            }
            return exitCodes.ok;
          }
          if (!output.json) output.progress(output.colors.dim(started));
          await followTurn({ handle, output, context, taskQueue: connected.taskQueue });
          return finishTurn({ handle, output });
        },
      });
    });
}
